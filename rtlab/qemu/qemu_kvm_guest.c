/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu_kvm_guest: does /dev/kvm run a guest at all? (see qemu_kvm_guest.h)
 *
 * /dev/kvm existing proves little (nested KVM on a cloud VM has been seen to accept
 * every ioctl and then hang in KVM_RUN), so a real guest runs: one page of memory,
 * one vCPU in real mode, and seven bytes of code that compute 0x20 + 0x3a, write the
 * sum to port 0x10 and halt. Only an OUT exit with the right port and value followed
 * by a HLT exit counts as "works". The guest runs in a child process that the parent
 * kills by pid when it does not finish in time ("hung").
 *
 * The child reports on its standard output, one line each:
 *   A <api version>     when KVM_GET_API_VERSION answered
 *   W                   the guest ran correctly
 *   P <reason>          no permission to open the device
 *   F <reason>          anything else went wrong
 *   S                   the device was a stand-in (below)
 *
 * A stand-in device: a regular file (named by $RTLAB_KVM_DEV in tests) holds the
 * report lines the child would print; the child copies them out behind an "S"
 * line. It lets the suites act out a host with KVM on one without it, together
 * with a stand-in qemu-system-x86_64 (tests/vm/fake-qemu).
 */
#include "qemu_kvm_guest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/kvm.h>
#endif

#include "core/rt_child.h"
#include "core/rt_err.h"

/* k->detail replaced by a new message. Evaluates to 0 or -ENOMEM. */
#define guest_detail(k, ...) \
	(free((k)->detail), (k)->detail = NULL, rt_err(&(k)->detail, 0, __VA_ARGS__), \
	 (k)->detail ? 0 : -ENOMEM)

#define KVM_GUEST_ADDR 0x1000
#define KVM_GUEST_PORT 0x10
#define KVM_GUEST_VALUE 0x5a
#define KVM_STAND_IN_MAX 4096

/* Child: a stand-in file's report, behind an "S" line. */
static void kvm_stand_in(int fd)
{
	char buf[KVM_STAND_IN_MAX];
	ssize_t n;

	dprintf(1, "S\n");
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		dprintf(1, "F reading the stand-in device: %s\n", strerror(errno));
		return;
	}
	buf[n] = '\0';
	dprintf(1, "%s\n", buf);
}

#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__))

/* mov al, 0x20; add al, 0x3a; out 0x10, al; hlt */
static const unsigned char guest_code[] = {
	0xb0, 0x20, 0x04, 0x3a, 0xe6, KVM_GUEST_PORT, 0xf4,
};

/* Child: set up and run the guest; report on fd 1. Never returns early without a line. */
static int kvm_guest(void *arg)
{
	const char *dev = arg;
	struct kvm_userspace_memory_region region = { 0 };
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_run *run;
	void *mem;
	int kvm, vm, vcpu, api, size;

	struct stat st;

	/* O_NONBLOCK: a FIFO put there must not hang the child until it is killed. */
	kvm = open(dev, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (kvm < 0) {
		dprintf(1, "%c open %s: %s\n", errno == EACCES || errno == EPERM ? 'P' : 'F',
			dev, strerror(errno));
		return 0;
	}
	if (fstat(kvm, &st) == 0 && S_ISREG(st.st_mode)) {
		kvm_stand_in(kvm);
		return 0;
	}
	api = ioctl(kvm, KVM_GET_API_VERSION, 0);
	if (api >= 0)
		dprintf(1, "A %d\n", api);
	if (api != KVM_API_VERSION) {
		dprintf(1, "F KVM API version %d, expected %d\n", api, KVM_API_VERSION);
		return 0;
	}
	vm = ioctl(kvm, KVM_CREATE_VM, 0UL);
	if (vm < 0) {
		dprintf(1, "F KVM_CREATE_VM: %s\n", strerror(errno));
		return 0;
	}
	/* Needed for real mode on Intel hosts without unrestricted guests; harmless elsewhere. */
	ioctl(vm, KVM_SET_TSS_ADDR, 0xfffbd000UL);

	mem = mmap(NULL, 0x1000, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		dprintf(1, "F mmap guest memory: %s\n", strerror(errno));
		return 0;
	}
	memcpy(mem, guest_code, sizeof(guest_code));
	region.slot = 0;
	region.guest_phys_addr = KVM_GUEST_ADDR;
	region.memory_size = 0x1000;
	region.userspace_addr = (uintptr_t)mem;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0) {
		dprintf(1, "F KVM_SET_USER_MEMORY_REGION: %s\n", strerror(errno));
		return 0;
	}
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0UL);
	if (vcpu < 0) {
		dprintf(1, "F KVM_CREATE_VCPU: %s\n", strerror(errno));
		return 0;
	}
	size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, NULL);
	if (size < (int)sizeof(*run)) {
		dprintf(1, "F KVM_GET_VCPU_MMAP_SIZE: %s\n",
			size < 0 ? strerror(errno) : "too small");
		return 0;
	}
	run = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED) {
		dprintf(1, "F mmap kvm_run: %s\n", strerror(errno));
		return 0;
	}

	/* Real mode, code segment at 0, execution starts at the code. */
	if (ioctl(vcpu, KVM_GET_SREGS, &sregs) < 0) {
		dprintf(1, "F KVM_GET_SREGS: %s\n", strerror(errno));
		return 0;
	}
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) < 0) {
		dprintf(1, "F KVM_SET_SREGS: %s\n", strerror(errno));
		return 0;
	}
	memset(&regs, 0, sizeof(regs));
	regs.rip = KVM_GUEST_ADDR;
	regs.rflags = 0x2;	/* bit 1 is reserved and must be set */
	if (ioctl(vcpu, KVM_SET_REGS, &regs) < 0) {
		dprintf(1, "F KVM_SET_REGS: %s\n", strerror(errno));
		return 0;
	}

	for (int step = 0; step < 2;) {
		if (ioctl(vcpu, KVM_RUN, 0UL) < 0) {
			if (errno == EINTR)
				continue;
			dprintf(1, "F KVM_RUN: %s\n", strerror(errno));
			return 0;
		}
		if (step == 0 && run->exit_reason == KVM_EXIT_IO) {
			unsigned char value = *((unsigned char *)run + run->io.data_offset);

			if (run->io.direction != KVM_EXIT_IO_OUT ||
			    run->io.port != KVM_GUEST_PORT || run->io.size != 1 ||
			    run->io.count != 1 || value != KVM_GUEST_VALUE) {
				dprintf(1, "F the guest wrote 0x%x to port 0x%x, expected 0x%x "
					"to 0x%x\n", value, run->io.port, KVM_GUEST_VALUE,
					KVM_GUEST_PORT);
				return 0;
			}
			step++;
			continue;
		}
		if (step == 1 && run->exit_reason == KVM_EXIT_HLT) {
			dprintf(1, "W\n");
			return 0;
		}
		if (run->exit_reason == KVM_EXIT_FAIL_ENTRY)
			dprintf(1, "F VM entry failed (hardware reason 0x%llx)\n",
				(unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		else if (run->exit_reason == KVM_EXIT_INTERNAL_ERROR)
			dprintf(1, "F KVM internal error (suberror %u)\n", run->internal.suberror);
		else
			dprintf(1, "F unexpected exit reason %u at step %d\n", run->exit_reason,
				step);
		return 0;
	}
	return 0;
}

#else

static int kvm_guest(void *arg)
{
	(void)arg;
	dprintf(1, "F the test guest is written for x86\n");
	return 0;
}

#endif

/* Read the child's report lines into @k. */
static int kvm_parse_report(struct qemu_kvm_guest *k, const char *out)
{
	int ret = 0;

	k->verdict = QEMU_KVM_GUEST_FAILED;
	for (const char *line = out; line && *line && !ret;) {
		size_t n = strcspn(line, "\n");
		const char *rest = n > 2 ? line + 2 : "";
		int rest_len = n > 2 ? (int)(n - 2) : 0;

		switch (line[0]) {
		case 'A':
			k->api_version = atoi(rest);
			break;
		case 'W':
			k->verdict = QEMU_KVM_GUEST_WORKS;
			break;
		case 'S':
			k->stand_in = true;
			break;
		case 'P':
			k->verdict = QEMU_KVM_GUEST_NO_PERMISSION;
			ret = guest_detail(k, "%.*s", rest_len, rest);
			break;
		case 'F':
			k->verdict = QEMU_KVM_GUEST_FAILED;
			ret = guest_detail(k, "%.*s", rest_len, rest);
			break;
		}
		line = line[n] ? line + n + 1 : NULL;
	}
	if (!ret && k->verdict == QEMU_KVM_GUEST_FAILED && !k->detail)
		ret = guest_detail(k, "the test guest's process gave no answer");
	return ret;
}

int qemu_kvm_guest_run(struct qemu_kvm_guest *k, const char *dev, bool active,
		       unsigned int timeout_ms)
{
	struct rt_child_opts co = { .fn = kvm_guest, .in = RT_CHILD_NULL, .out = RT_CHILD_CAPTURE,
				    .err = RT_CHILD_TO_STDOUT };
	struct rt_child_result res;
	int ret;

	memset(k, 0, sizeof(*k));
	k->api_version = -1;
	if (access(dev, F_OK) < 0) {
		k->verdict = QEMU_KVM_GUEST_ABSENT;
		return guest_detail(k, "%s does not exist", dev);
	}
	k->dev_present = true;
	if (!active) {
		k->verdict = QEMU_KVM_GUEST_NOT_PROBED;
		return guest_detail(k, "not tried");
	}
	co.arg = (void *)dev;
	ret = rt_child_run(&co, timeout_ms, &res, NULL);
	if (ret < 0) {
		k->verdict = QEMU_KVM_GUEST_FAILED;
		return guest_detail(k, "could not start a child: %s", strerror(-ret));
	}
	switch (res.end) {
	case RT_CHILD_TIMEOUT:
		k->verdict = QEMU_KVM_GUEST_HUNG;
		ret = kvm_parse_report(k, res.out);
		k->verdict = QEMU_KVM_GUEST_HUNG;
		if (!ret)
			ret = guest_detail(k, "the test guest did not exit within %u ms "
					     "and was killed%s", timeout_ms, res.unreaped ?
					     " (its process is stuck in the kernel)" : "");
		break;
	case RT_CHILD_SIGNALED:
		k->verdict = QEMU_KVM_GUEST_FAILED;
		ret = guest_detail(k, "the test guest's process died of signal %d",
				     res.code);
		break;
	default:
		ret = kvm_parse_report(k, res.out);
		break;
	}
	rt_child_result_fini(&res);
	return ret;
}

const char *qemu_kvm_guest_verdict_name(enum qemu_kvm_guest_verdict v)
{
	static const char *const names[] = {
		[QEMU_KVM_GUEST_NOT_PROBED] = "not-probed",
		[QEMU_KVM_GUEST_WORKS] = "works",
		[QEMU_KVM_GUEST_ABSENT] = "absent",
		[QEMU_KVM_GUEST_NO_PERMISSION] = "no-permission",
		[QEMU_KVM_GUEST_HUNG] = "hung",
		[QEMU_KVM_GUEST_FAILED] = "failed",
	};

	return (unsigned int)v <= QEMU_KVM_GUEST_FAILED ? names[v] : NULL;
}

char *qemu_kvm_dev_path(const char *root)
{
	const char *env = getenv("RTLAB_KVM_DEV");
	char *path;

	if (!*root && env && *env)
		return strdup(env);
	if (asprintf(&path, "%s/dev/kvm", root) < 0)
		return NULL;
	return path;
}

void qemu_kvm_guest_fini(struct qemu_kvm_guest *k)
{
	free(k->detail);
	memset(k, 0, sizeof(*k));
	k->api_version = -1;
}
