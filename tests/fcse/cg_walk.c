/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cg_walk: the program of the FCSE model's validation against valgrind
 * (tests/cli/fcse_valgrind.t). Built with -nostdlib -static, so that
 * the trace holds this loop and nothing of a C library: strided writes
 * over 256 KB, random reads, calls that push and pop the stack, and
 * unaligned 8-byte loads that straddle lines. Run the same binary under
 * cachegrind and under lackey: the model replaying lackey's trace must
 * count the misses cachegrind counts.
 */
static unsigned char buf[256 * 1024] __attribute__((aligned(64)));
static unsigned long rng = 12345;

static __attribute__((noinline)) unsigned long mix(unsigned long a, unsigned long b)
{
	volatile unsigned long frame[8];

	for (int i = 0; i < 8; i++)
		frame[i] = a ^ (b << i);
	return frame[a & 7] + frame[b & 7];
}

void _start(void);
void _start(void)
{
	unsigned long sum = 0;

	for (int r = 0; r < 8; r++)
		for (unsigned int i = 0; i < sizeof(buf); i += 48)
			buf[i] += (unsigned char)(i + r);
	for (int i = 0; i < 60000; i++) {
		unsigned long at;

		rng = rng * 6364136223846793005ul + 1442695040888963407ul;
		at = (rng >> 33) % (sizeof(buf) - 8);
		sum += *(volatile unsigned long *)(void *)(buf + at);
		if (i % 16 == 0)
			sum = mix(sum, rng);
	}
	__asm__ volatile("mov $60, %%eax; mov %0, %%rdi; syscall" : : "r"(sum & 0) : "rax", "rdi");
	for (;;)
		;
}
