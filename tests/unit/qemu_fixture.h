/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu_fixture: files for the VM runner's tests (header only, so it is not linked into
 * every other test binary): a file with given text and mode, a dummy image for a kernel
 * (any bytes: the tests' fake QEMU never reads it), and removing a fixture directory.
 * Include after <cmocka.h>.
 */
#ifndef RTLAB_TESTS_VM_FIXTURE_H
#define RTLAB_TESTS_VM_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* Write @text to @path and give it @mode. */
static inline void qemu_fx_put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/* <@images>/<@kernel>/{vmlinuz,initrd.img}; @images must exist. */
static inline void qemu_fx_image(const char *images, const char *kernel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", images, kernel);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/%s/vmlinuz", images, kernel);
	qemu_fx_put(p, "kernel", 0644);
	snprintf(p, sizeof(p), "%s/%s/initrd.img", images, kernel);
	qemu_fx_put(p, "initrd", 0644);
}

/* rm -rf @dir (a mkdtemp() name: no quote in it). Returns 0 or -1. */
static inline int qemu_fx_remove(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

#endif
