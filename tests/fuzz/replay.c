/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay: a main() for fuzz targets built without libFuzzer (gcc, ASan,
 * UBSan). Each argument is a file, or a directory whose regular files are
 * replayed in name order, through LLVMFuzzerTestOneInput(). `make check`
 * runs every corpus this way, so a crash found once stays fixed.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/rt_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	char *data;
	size_t len;
	int ret = rt_file_read(path, 16u << 20, &data, &len);

	if (ret) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(-ret));
		return -1;
	}
	LLVMFuzzerTestOneInput((const uint8_t *)data, len);
	free(data);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	unsigned int files = 0;
	int failed = 0;

	for (int i = 1; i < argc; i++) {
		struct dirent **names;
		struct stat st;
		int n;

		if (stat(argv[i], &st) < 0) {
			perror(argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			failed |= replay_file(argv[i]);
			files++;
			continue;
		}
		n = scandir(argv[i], &names, NULL, by_name);
		if (n < 0) {
			perror(argv[i]);
			return 1;
		}
		for (int k = 0; k < n; k++) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]->d_name);
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
				failed |= replay_file(path);
				files++;
			}
			free(names[k]);
		}
		free(names);
	}
	printf("replay %s: %u inputs, no crash\n", argc > 1 ? argv[1] : "", files);
	return failed ? 1 : 0;
}
