/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu_machine: the boards rtlab boots, one table entry each.
 *
 * What the command line needs to know about a board, so that the runner does not assume
 * one: QEMU's binary and -machine name, the guest's console device, whether KVM can run
 * it (only a board of the host's own architecture), the limits of its CPUs, memory and
 * kernel command line, whether its kernel wants a device tree, and how the guest reaches
 * its disks and the host's channel. The x86 `pc` has PCI with virtio: the state disk is
 * a virtio-blk disk, the channel a named virtio-serial port, and the hypervisor lab's
 * scratch disk and the shared folder are virtio devices too. The ARM `versatilepb` (the
 * ARM926 board the FCSE kernel runs on) has its console on the first PL011 (ttyAMA0),
 * its disk on the SCSI controller QEMU puts on its PCI bus (sym53c8xx: /dev/sda), and
 * the channel on the second PL011 (ttyAMA1); it has no scratch disk and no share.
 */
#ifndef RTLAB_QEMU_QEMU_MACHINE_H
#define RTLAB_QEMU_QEMU_MACHINE_H

#include <stdbool.h>

struct qemu_machine {
	const char *name;		/* QEMU's -machine value, and how callers name it */
	const char *qemu;		/* the emulator, found in PATH */
	const char *console;		/* the guest's console device: console=<it>,115200 */
	const char *cpu_kvm;		/* -cpu under KVM; NULL: never KVM (another
					 * architecture than the host's) */
	const char *cpu_tcg;		/* -cpu under TCG; NULL: the board's own CPU */
	bool tcg_multi;			/* one host thread per vCPU under TCG */
	unsigned int max_smp, default_smp;
	unsigned int max_mem_mb, default_mem_mb; /* the least is 128 MiB on every board */
	unsigned int append_max;	/* the longest kernel command line rtlab builds: the
					 * kernel's limit less a margin */
	bool needs_dtb;			/* its kernel boots with a device tree (-dtb) */
	const char *disk_if;		/* the state disk's -drive if= value */
	bool virtio_pci;		/* virtio on PCI: the channel is a virtio-serial port
					 * (QEMU_PROBE_PORT), a scratch disk on an I/O thread
					 * and a 9p share can be had */
	const char *channel_tty;	/* without virtio_pci: the UART the channel is on, as
					 * the guest names it (QEMU's second -serial) */
};

/* x86-64 `pc`: ttyS0, virtio disks and channel; KVM when it works here. */
extern const struct qemu_machine qemu_machine_pc;
/* ARM `versatilepb` (ARM926EJ-S): ttyAMA0, SCSI disk, the channel on ttyAMA1; TCG only. */
extern const struct qemu_machine qemu_machine_versatilepb;

/* The machine called @name ("pc", "versatilepb"), or NULL. */
const struct qemu_machine *qemu_machine_find(const char *name);

#endif
