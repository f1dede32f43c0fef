/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu_machine: the table of boards (see qemu_machine.h). The limits are the kernel's
 * and the board's: x86 keeps 2048 bytes of command line and ARM 1024, of which rtlab
 * uses at most 2000 and 1000; the Versatile board has one ARM926 and at most 256 MiB.
 */
#include "qemu_machine.h"

#include <stddef.h>
#include <string.h>

const struct qemu_machine qemu_machine_pc = {
	.name = "pc",
	.qemu = "qemu-system-x86_64",
	.console = "ttyS0",
	.cpu_kvm = "host",
	.cpu_tcg = "max",
	.tcg_multi = true,
	.max_smp = 64,
	.default_smp = 2,
	.max_mem_mb = 65536,
	.default_mem_mb = 1024,
	.append_max = 2000,
	.disk_if = "virtio",
	.virtio_pci = true,
};

const struct qemu_machine qemu_machine_versatilepb = {
	.name = "versatilepb",
	.qemu = "qemu-system-arm",
	.console = "ttyAMA0",
	.cpu_tcg = "arm926",
	.max_smp = 1,
	.default_smp = 1,
	.max_mem_mb = 256,
	.default_mem_mb = 256,
	.append_max = 1000,
	.needs_dtb = true,
	.disk_if = "scsi",
	.channel_tty = "ttyAMA1",
};

static const struct qemu_machine *const qemu_machines[] = {
	&qemu_machine_pc,
	&qemu_machine_versatilepb,
};

const struct qemu_machine *qemu_machine_find(const char *name)
{
	for (size_t i = 0; i < sizeof(qemu_machines) / sizeof(qemu_machines[0]); i++)
		if (strcmp(qemu_machines[i]->name, name) == 0)
			return qemu_machines[i];
	return NULL;
}
