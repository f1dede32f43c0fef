/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fcse_randwalk: the program cachegrind runs in bench/fcse-bench, for its
 * references per second beside the FCSE model's accesses per second: a
 * random walk over 1 MB, about 150 million instruction and data
 * references, no C library (so nothing but the walk is counted).
 */
static unsigned char buf[1 << 20] __attribute__((aligned(64)));

void _start(void);
void _start(void)
{
	unsigned long x = 88172645463325252ul, sum = 0;

	for (long i = 0; i < 15000000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sum += buf[x & (sizeof(buf) - 1)]++;
	}
	__asm__ volatile("mov $60, %%eax; mov %0, %%rdi; syscall" : : "r"(sum & 0) : "rax", "rdi");
	for (;;)
		;
}
