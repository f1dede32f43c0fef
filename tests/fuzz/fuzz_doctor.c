/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_doctor: the doctor's text parsers (/proc/mounts, /proc/self/status,
 * available_tracers, trigger files, plain integers, qemu --version) on
 * arbitrary bytes. They read kernel-provided files, which a broken or
 * exotic kernel can fill with anything, so none of them may crash or leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	char **words = NULL;
	size_t n = 0;
	uint64_t hex;
	long long ll;
	char *s;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	free(doctor_parse_mount(text, "tracefs", "/sys/kernel/tracing"));
	free(doctor_parse_mount(text, "debugfs", NULL));
	doctor_parse_status_hex(text, "CapEff:", &hex);
	if (doctor_parse_words(text, &words, &n) == 0) {
		if (n)
			doctor_words_has(words, n, words[n - 1]);
		doctor_words_has(words, n, "irqsoff");
		doctor_words_free(words, n);
	}
	doctor_parse_trigger_has_hist(text);
	doctor_parse_ll(text, &ll);
	s = doctor_parse_qemu_version(text);
	free(s);
	free(doctor_first_line(text));
	free(text);
	return 0;
}
