/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fcse_mva: what an emulated ARM926EJ-S does with the FCSE PID, checked
 * bare metal on QEMU's versatilepb (tests/cli/fcse_arm.t runs it).
 *
 * For each (PID, VA) pair below, the first-level page table maps two
 * 1 MB sections of modified virtual addresses (MVAs) onto RAM sections
 * of their own: the section of VA itself (as if the FCSE left it alone)
 * and the section of VA + PID x 32 MB (as if it relocated it). Neither is
 * the answer: the program sets the PID, stores a byte through VA, sets
 * PID 0 (the flat mapping, where an address below 32 MB is its own MVA)
 * and looks for the byte at both candidates. It prints, on the UART,
 *
 *   pid=P va=0xVVVVVVVV mva=0xMMMMMMMM
 *
 * with the candidate that holds the byte ("none" or "both" when not one),
 * then "fcse-check done" and exits QEMU through semihosting. The test
 * compares each line with the simulator's sim_fcse_mva(VA, PID).
 *
 * The program's own code, data and stack live below 1 MB, so the FCSE
 * relocates them too: section 0 of every tested PID's 32 MB slot maps to
 * RAM at 0, where they are. The PIDs tested avoid slot 1 and the slot
 * after each one (whose section 0 is VA 32 MB's candidate).
 */
#include <stdint.h>

#define UART0 0x101f1000u
#define SLOT (32u << 20)
#define SEC(a) ((a) >> 20)
#define TABLE ((volatile uint32_t *)0x00004000u)	/* 16 KB aligned, below the program */
#define SECTION_FLAGS 0xc12u	/* AP 3 (read/write), domain 0, a section, uncached */
#define MAGIC 0xa5u

void cp15_set_pid(uint32_t v);
uint32_t cp15_get_pid(void);
void mmu_enable(uint32_t table);
int main(void);

static const uint32_t pids[] = { 0, 2, 5, 94, 127 };
static const uint32_t vas[] = { 0x00100000u, 0x01fffffcu, 0x01ffffffu, 0x02000000u,
				0x02000003u };
#define NPIDS (sizeof(pids) / sizeof(pids[0]))
#define NVAS (sizeof(vas) / sizeof(vas[0]))

static uint32_t next_ram = 0x01000000u;	/* RAM sections handed to candidates, from 16 MB */

static void putc_(char c)
{
	*(volatile uint32_t *)UART0 = (uint32_t)c;
}

static void puts_(const char *s)
{
	while (*s)
		putc_(*s++);
}

static void puthex(uint32_t v)
{
	puts_("0x");
	for (int i = 28; i >= 0; i -= 4)
		putc_("0123456789abcdef"[(v >> i) & 15]);
}

static void putdec(uint32_t v)
{
	char b[12];
	int n = 0;

	do {
		b[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		putc_(b[--n]);
}

/* Map the 1 MB section of MVA @mva to a RAM section of its own, once. */
static void map_candidate(uint32_t mva)
{
	if (TABLE[SEC(mva)])
		return;
	TABLE[SEC(mva)] = next_ram | SECTION_FLAGS;
	next_ram += 1u << 20;
}

static uint64_t reloc(uint32_t va, uint32_t pid)
{
	return (uint64_t)va + (uint64_t)pid * SLOT;
}

int main(void)
{
	for (uint32_t i = 0; i < 4096; i++)
		TABLE[i] = 0;
	/* The program's section in every tested slot; the UART flat. */
	for (uint32_t p = 0; p < NPIDS; p++)
		TABLE[SEC(pids[p] * SLOT)] = 0x00000000u | SECTION_FLAGS;
	TABLE[SEC(UART0)] = (UART0 & 0xfff00000u) | SECTION_FLAGS;
	for (uint32_t p = 0; p < NPIDS; p++) {
		for (uint32_t v = 0; v < NVAS; v++) {
			map_candidate(vas[v]);
			if (reloc(vas[v], pids[p]) < (1ull << 32))
				map_candidate((uint32_t)reloc(vas[v], pids[p]));
		}
	}
	mmu_enable((uint32_t)(uintptr_t)TABLE);
	puts_("fcse-check start pid-register=");
	puthex(cp15_get_pid());
	puts_("\n");

	for (uint32_t p = 0; p < NPIDS; p++) {
		for (uint32_t v = 0; v < NVAS; v++) {
			uint32_t va = vas[v], cand[2] = { va, 0 };
			int ncand = 1, hits = 0, which = -1;

			if (reloc(va, pids[p]) < (1ull << 32) && reloc(va, pids[p]) != va)
				cand[ncand++] = (uint32_t)reloc(va, pids[p]);
			cp15_set_pid(0);
			for (int c = 0; c < ncand; c++)
				*(volatile uint8_t *)(uintptr_t)cand[c] = 0;
			cp15_set_pid(pids[p] << 25);
			*(volatile uint8_t *)(uintptr_t)va = MAGIC;
			cp15_set_pid(0);
			for (int c = 0; c < ncand; c++) {
				if (*(volatile uint8_t *)(uintptr_t)cand[c] == MAGIC) {
					hits++;
					which = c;
				}
			}
			puts_("pid=");
			putdec(pids[p]);
			puts_(" va=");
			puthex(va);
			puts_(" mva=");
			if (hits == 1)
				puthex(cand[which]);
			else
				puts_(hits ? "both" : "none");
			puts_("\n");
		}
	}
	puts_("fcse-check done\n");
	return 0;
}
