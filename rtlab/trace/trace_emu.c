/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace_emu: the judgement "this trace's worst section is likely the
 * emulator's", from the parsed trace and where it was taken (trace_emu.h).
 *
 * Two lists of function names decide it. The short paths are code that
 * runs a few instructions to a few hundred on real hardware and loops over
 * nothing that grows: what the emulator-made sections of the hunt traces
 * captured in the lab kernel under TCG (tests/data/traces/hunt/README.md)
 * started in, or, for the wake-up tracers, stalled before. The deliberate
 * ones are code that spends time on purpose (the injector's and the
 * user-space hog's sections, delay loops, console and UART output): a
 * section that ran any of it is a real cause, whatever the environment.
 * A name not on either list gets no verdict: better silent than wrong.
 */
#include "trace_emu.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* A name, or a prefix when it ends in '*'. */
static bool te_match(const char *pat, const char *name)
{
	size_t n = strlen(pat);

	if (!name)
		return false;
	if (n && pat[n - 1] == '*')
		return !strncmp(pat, name, n - 1);
	return !strcmp(pat, name);
}

static const struct {
	const char *pat;
	const char *path;
} te_short[] = {
	{ "irqentry_*", "interrupt entry and exit" },
	{ "irq_enter*", "interrupt entry and exit" },
	{ "irq_exit*", "interrupt entry and exit" },
	{ "__irq_exit_rcu", "interrupt entry and exit" },
	{ "sysvec_*", "interrupt entry and exit" },
	{ "__sysvec_*", "interrupt entry and exit" },
	{ "asm_sysvec_*", "interrupt entry and exit" },
	{ "asm_common_interrupt", "interrupt entry and exit" },
	{ "common_interrupt", "interrupt entry and exit" },
	{ "asm_exc_*", "exception entry and exit" },
	{ "exc_page_fault", "exception entry and exit" },
	{ "__traceiter_*", "a tracepoint, where tracers hook in" },
	{ "schedule", "the scheduler's switch path" },
	{ "__schedule", "the scheduler's switch path" },
	{ "preempt_schedule*", "the scheduler's switch path" },
	{ "class_preempt_*", "the scheduler's switch path" },
	{ "finish_task_switch*", "the scheduler's switch path" },
	{ "raw_spin_rq_lock*", "the scheduler's switch path" },
	{ "preempt_count_*", "the preemption counter's update" },
	{ "trace_hardirqs_*", "switching interrupts on or off" },
	{ "lapic_next_event", "programming the timer" },
	{ "clockevents_program_event", "programming the timer" },
	{ "gup_fast*", "a page-table walk (get_user_pages_fast)" },
};

static const char *const te_deliberate[] = {
	"rtlab_inject_*", "trace_hog_*", "__const_udelay", "__udelay", "__ndelay", "delay_*",
	"*mdelay", "serial8250_*", "uart_*", "tty_*", "console_*", "vprintk*", "_printk",
	"hwlat_*", "get_sample",
};

const char *trace_emu_short_path(const char *name)
{
	for (size_t i = 0; i < sizeof(te_short) / sizeof(te_short[0]); i++)
		if (te_match(te_short[i].pat, name))
			return te_short[i].path;
	return NULL;
}

static bool te_is_deliberate(const char *name)
{
	for (size_t i = 0; name && i < sizeof(te_deliberate) / sizeof(te_deliberate[0]); i++) {
		const char *p = te_deliberate[i];

		/* "*mdelay": a suffix. */
		if (p[0] == '*') {
			size_t n = strlen(name), m = strlen(p + 1);

			if (n >= m && !strcmp(name + n - m, p + 1))
				return true;
		} else if (te_match(p, name)) {
			return true;
		}
	}
	return false;
}

/*
 * The function an entry names: "f <-caller" is f; a line of one word (the
 * off-tracers' first entry, "irqentry_enter", or a wake-up tracer's
 * "__traceiter_sched_switch") is that word. NULL otherwise.
 */
static const char *te_entry_fn(const struct trace_lat_entry *e)
{
	if (e->kind == TRACE_LAT_FUNC)
		return e->function;
	if (e->kind == TRACE_LAT_TEXT && e->text && (isalpha((unsigned char)*e->text) ||
						      *e->text == '_') && !strpbrk(e->text, " \t:"))
		return e->text;
	return NULL;
}

enum trace_emu_env trace_emu_env_from_vm(bool in_vm, const char *vm_type)
{
	if (!in_vm)
		return TRACE_EMU_HOST;
	/* rt_env names QEMU's TCG from its CPUID signature "TCGTCGTCGTCG". */
	if (vm_type && strstr(vm_type, "TCG"))
		return TRACE_EMU_TCG;
	if (vm_type && (!strcmp(vm_type, "KVM") || strstr(vm_type, "VMware") ||
			strstr(vm_type, "Hyper-V") || strstr(vm_type, "Xen")))
		return TRACE_EMU_HWVIRT;
	/* A VM of an unknown kind (DMI says QEMU: TCG or KVM). */
	return TRACE_EMU_UNKNOWN;
}

const char *trace_emu_env_words(enum trace_emu_env env)
{
	switch (env) {
	case TRACE_EMU_TCG:
		return "under QEMU's TCG emulation";
	case TRACE_EMU_HWVIRT:
		return "in a VM with hardware virtualisation";
	case TRACE_EMU_HOST:
		return "on bare metal";
	default:
		return "somewhere not recorded";
	}
}

/* A wake-up line "PID:PRIO:S + [CPU] PID: PRIO:S COMM": the waker's and the woken's prio. */
static bool te_wakeup_prios(const char *s, int *waker, int *woken)
{
	int pid1, cpu, pid2;
	char st1, st2, op[4];

	return s && sscanf(s, "%d:%d:%c %3s [%d] %d: %d:%c", &pid1, waker, &st1, op, &cpu, &pid2,
			   woken, &st2) == 8 && !strcmp(op, "+");
}

/* The widest gap between two entries that are not stack markers. */
static void te_stall(const struct trace_latency *t, struct trace_emu_verdict *out,
		     size_t *nfunc, const char **stall_next)
{
	const struct trace_lat_entry *prev = NULL;

	*nfunc = 0;
	for (size_t i = 0; i < t->nentries; i++) {
		const struct trace_lat_entry *e = &t->entries[i];

		if (e->kind == TRACE_LAT_STACK)
			continue;
		(*nfunc)++;
		if (prev && e->time_ns > prev->time_ns &&
		    (uint64_t)(e->time_ns - prev->time_ns) / 1000 > out->stall_us) {
			out->stall_us = (uint64_t)(e->time_ns - prev->time_ns) / 1000;
			out->stall_after = te_entry_fn(prev);
			out->stall_line = prev->line;
			*stall_next = te_entry_fn(e);
		}
		prev = e;
	}
}

void trace_emu_judge(const struct trace_latency *t, enum trace_emu_env env,
		     struct trace_emu_verdict *out)
{
	bool wake = t->tracer && !strncmp(t->tracer, "wakeup", 6);
	bool off = t->tracer && (!strcmp(t->tracer, "irqsoff") || !strcmp(t->tracer, "preemptoff") ||
				 !strcmp(t->tracer, "preemptirqsoff"));
	const char *stall_next = NULL;
	size_t nfunc;

	memset(out, 0, sizeof(*out));
	out->tracer = t->tracer;
	out->wake = wake;
	if (!t->have_latency || (!wake && !off))
		return;
	out->latency_us = t->latency_us;
	te_stall(t, out, &nfunc, &stall_next);
	if (t->latency_us < TRACE_EMU_MIN_US || env == TRACE_EMU_HOST)
		return;
	if (te_is_deliberate(t->started_at) || te_is_deliberate(t->ended_at))
		return;
	for (size_t i = 0; i < t->nentries; i++) {
		const struct trace_lat_entry *e = &t->entries[i];

		if (te_is_deliberate(te_entry_fn(e)) ||
		    (e->kind == TRACE_LAT_FUNC && te_is_deliberate(e->caller)))
			return;
	}
	if (off) {
		out->where = t->started_at;
		out->path = trace_emu_short_path(t->started_at);
	} else {
		int waker = 0, woken = 0;
		bool seen = false;

		/*
		 * A wake-up tracer keeps a wake-up of a task of higher priority than
		 * the one running (kernel prio: lower is higher), so nothing should
		 * have held the switch: the wait went in the path to it. Where: the
		 * widest stall's ends if they are short code, else the first short
		 * code on the way.
		 */
		for (size_t i = 0; i < t->nentries && !seen; i++)
			if (t->entries[i].kind == TRACE_LAT_SCHED)
				seen = te_wakeup_prios(t->entries[i].text, &waker, &woken);
		if (!seen || woken >= waker)
			return;
		/*
		 * Woken inside code that spends time on purpose (its stack at the
		 * wake-up says so): the wait may be that code's, preemption off.
		 */
		for (size_t i = 0; i < t->nstack; i++)
			if (te_is_deliberate(t->stack[i]))
				return;
		out->where = trace_emu_short_path(out->stall_after) ? out->stall_after :
			     trace_emu_short_path(stall_next) ? stall_next : NULL;
		for (size_t i = 0; i < t->nentries && !out->where; i++)
			if (trace_emu_short_path(te_entry_fn(&t->entries[i])))
				out->where = te_entry_fn(&t->entries[i]);
		out->path = trace_emu_short_path(out->where);
	}
	out->has_stack = t->nstack > 0;
	/* A function trace with one gap over half the section: the CPU stood still there. */
	if (nfunc <= 3 || out->stall_us * 2 < t->latency_us)
		out->stall_after = NULL;
	out->likely = out->path != NULL;
}


/* What the guest really went without during the section, by tracer. */
static const char *te_what_off(const char *tracer)
{
	if (!tracer)
		return "waited";
	if (!strcmp(tracer, "irqsoff"))
		return "had interrupts off";
	if (!strcmp(tracer, "preemptoff"))
		return "had preemption off";
	if (!strcmp(tracer, "preemptirqsoff"))
		return "could not schedule";
	return "kept the woken task waiting";
}

int trace_emu_sentence(const struct trace_emu_verdict *v, enum trace_emu_env env,
		       bool long_form, struct rt_buf *out)
{
	const char *what = te_what_off(v->tracer);
	int ret;

	if (!v->likely)
		return 0;
	if (!long_form) {
		ret = rt_buf_printf(out, "%s the emulator's: it %s in %s (%s), short code on real "
				    "hardware; the guest really %s for %llu us, but the time is %s's, "
				    "not this code's",
				    env == TRACE_EMU_UNKNOWN ? "if taken under emulation, likely" :
				    env == TRACE_EMU_HWVIRT ? "possibly" : "likely",
				    v->wake ? "stalled" : "started", v->where, v->path, what,
				    (unsigned long long)v->latency_us,
				    env == TRACE_EMU_HWVIRT ? "the host" : "the emulator");
		return ret ? ret : rt_buf_puts(out, "\n");
	}
	if (env == TRACE_EMU_UNKNOWN)
		ret = rt_buf_puts(out, "If this trace was taken under emulation (QEMU without KVM, "
				  "like the classroom VM on a machine without /dev/kvm), its "
				  "section is likely the emulator's: ");
	else if (env == TRACE_EMU_HWVIRT)
		ret = rt_buf_printf(out, "Possibly the host's: this run was %s, where the host "
				    "can stop a virtual CPU's thread while the guest has interrupts "
				    "off, and ", trace_emu_env_words(env));
	else
		ret = rt_buf_printf(out, "Likely the emulator's: this run was %s, where the host "
				    "can stop the emulated CPU at any instruction, and ",
				    trace_emu_env_words(env));
	if (!ret && v->wake)
		ret = rt_buf_printf(out, "the woken task had the higher priority, so nothing "
				    "should have held it: it waited on the way to the switch, "
				    "at %s (%s), short code on real hardware. ", v->where,
				    v->path);
	else if (!ret)
		ret = rt_buf_printf(out, "the section started in %s (%s), short code on real "
				    "hardware. ", v->where, v->path);
	if (!ret && v->stall_after)
		ret = rt_buf_printf(out, "The CPU stood still for %llu us after %s (line %u). ",
				    (unsigned long long)v->stall_us, v->stall_after,
				    v->stall_line);
	if (!ret && v->has_stack && !v->wake)
		ret = rt_buf_puts(out, "Its <stack trace> still shows what the CPU was running. ");
	if (!ret)
		ret = rt_buf_printf(out, "The guest really %s for %llu us, but the time is %s's, "
				    "not this code's: labs/ftrace/README.md (\"A trace the "
				    "emulator made\") says what to do.\n", what,
				    (unsigned long long)v->latency_us,
				    env == TRACE_EMU_HWVIRT ? "the host" : "the emulator");
	return ret;
}
