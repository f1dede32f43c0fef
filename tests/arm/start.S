/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * start.S: the entry of the bare-metal FCSE check (fcse_mva.c) on QEMU's
 * versatilepb: a stack, main(), then QEMU told to exit through
 * semihosting (SYS_EXIT, ADP_Stopped_ApplicationExit).
 */
	.section .text.start, "ax"
	.global _start
	.arm
_start:
	ldr	sp, =stack_top
	bl	main
	.global semihost_exit
semihost_exit:
	mov	r0, #0x18
	ldr	r1, =0x20026
	svc	0x00123456
1:	b	1b

	.text
	.global cp15_set_pid
cp15_set_pid:				/* r0: the FCSE PID register's value (pid << 25) */
	mcr	p15, 0, r0, c13, c0, 0
	nop				/* the next two fetches may still use the old PID */
	nop
	bx	lr

	.global cp15_get_pid
cp15_get_pid:
	mrc	p15, 0, r0, c13, c0, 0
	bx	lr

	.global mmu_enable
mmu_enable:				/* r0: the first-level table's physical address */
	mov	r1, #0
	mcr	p15, 0, r1, c8, c7, 0	/* invalidate the TLBs */
	mcr	p15, 0, r0, c2, c0, 0	/* TTBR */
	mvn	r1, #0
	mcr	p15, 0, r1, c3, c0, 0	/* every domain a manager: no permission faults */
	mrc	p15, 0, r1, c1, c0, 0
	orr	r1, r1, #1		/* M: the MMU on, caches left off */
	mcr	p15, 0, r1, c1, c0, 0
	nop
	nop
	bx	lr
