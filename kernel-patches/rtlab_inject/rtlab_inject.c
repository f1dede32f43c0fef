// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtlab_inject: plant a latency on purpose, so a learner can find it with a tracer.
 *
 * The ftrace lab needs a cause of latency whose kind and function are known: this
 * driver makes one on request. Writing N (microseconds) to a file under
 * /sys/kernel/debug/rtlab_inject/ runs one busy section of N us:
 *
 *   irqsoff_us     with local interrupts disabled  (rtlab_inject_irqsoff_section)
 *   preemptoff_us  with preemption disabled        (rtlab_inject_preemptoff_section)
 *   softirq_us     inside a tasklet (softirq)      (rtlab_inject_softirq_section)
 *   fifo_spin_us   in a SCHED_FIFO kthread         (rtlab_inject_fifo_spin_section)
 *
 * Each section lives in its own noinline function so the irqsoff/preemptoff tracers'
 * "started at"/"ended at" lines and the function trace name it. The write returns
 * once the section has finished. "stats" reads back how many sections ran and how
 * many requests were refused.
 *
 * No lab may hang a machine: a section is at most RTLAB_INJECT_MAX_US (10 ms), one
 * section runs at a time, and at most RTLAB_INJECT_MAX_PER_SEC requests are accepted
 * per second; others fail with EINVAL (too long) or EBUSY (too often).
 *
 * The same file builds out of tree (kernel-patches/rtlab_inject/Kbuild) against
 * Debian's 6.1 headers and in the lab kernel as drivers/misc/rtlab_inject.c.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/kthread.h>
#include <linux/interrupt.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/seq_file.h>

#define RTLAB_INJECT_MAX_US	10000U
#define RTLAB_INJECT_MAX_PER_SEC	10U

enum rtlab_inject_kind {
	RTLAB_INJECT_IRQSOFF,
	RTLAB_INJECT_PREEMPTOFF,
	RTLAB_INJECT_SOFTIRQ,
	RTLAB_INJECT_FIFO_SPIN,
	RTLAB_INJECT_NKINDS,
};

static const char *const rtlab_inject_names[RTLAB_INJECT_NKINDS] = {
	[RTLAB_INJECT_IRQSOFF] = "irqsoff_us",
	[RTLAB_INJECT_PREEMPTOFF] = "preemptoff_us",
	[RTLAB_INJECT_SOFTIRQ] = "softirq_us",
	[RTLAB_INJECT_FIFO_SPIN] = "fifo_spin_us",
};

/* One trigger at a time; the counters and the rate window are under this lock. */
static DEFINE_MUTEX(rtlab_inject_lock);
static unsigned long rtlab_inject_window_start;
static unsigned int rtlab_inject_window_count;
static unsigned long rtlab_inject_done[RTLAB_INJECT_NKINDS];
static unsigned long rtlab_inject_refused;

static struct dentry *rtlab_inject_dir;

/* Busy-wait on the local clock: udelay() caps far below 10 ms on some arches. */
static noinline void rtlab_inject_busy(unsigned int us)
{
	u64 end = local_clock() + (u64)us * NSEC_PER_USEC;

	while (local_clock() < end)
		cpu_relax();
}

static noinline void rtlab_inject_irqsoff_section(unsigned int us)
{
	unsigned long flags;

	local_irq_save(flags);
	rtlab_inject_busy(us);
	local_irq_restore(flags);
}

static noinline void rtlab_inject_preemptoff_section(unsigned int us)
{
	preempt_disable();
	rtlab_inject_busy(us);
	preempt_enable();
}

/* The softirq section: a tasklet that spins, then wakes the writer. */
static unsigned int rtlab_inject_softirq_len;
static DECLARE_COMPLETION(rtlab_inject_softirq_done);

static noinline void rtlab_inject_softirq_section(struct tasklet_struct *t)
{
	rtlab_inject_busy(READ_ONCE(rtlab_inject_softirq_len));
	complete(&rtlab_inject_softirq_done);
}

static DECLARE_TASKLET(rtlab_inject_tasklet, rtlab_inject_softirq_section);

static void rtlab_inject_softirq(unsigned int us)
{
	reinit_completion(&rtlab_inject_softirq_done);
	WRITE_ONCE(rtlab_inject_softirq_len, us);
	tasklet_schedule(&rtlab_inject_tasklet);
	wait_for_completion(&rtlab_inject_softirq_done);
}

/* The SCHED_FIFO section: a kthread at the default FIFO priority that spins once. */
struct rtlab_inject_spin {
	unsigned int us;
	struct completion done;
};

static noinline void rtlab_inject_fifo_spin_section(unsigned int us)
{
	rtlab_inject_busy(us);
}

static int rtlab_inject_spin_thread(void *arg)
{
	struct rtlab_inject_spin *spin = arg;

	sched_set_fifo(current);
	rtlab_inject_fifo_spin_section(spin->us);
	complete(&spin->done);
	return 0;
}

static int rtlab_inject_fifo_spin(unsigned int us)
{
	struct rtlab_inject_spin spin = { .us = us };
	struct task_struct *task;

	init_completion(&spin.done);
	task = kthread_run(rtlab_inject_spin_thread, &spin, "rtlab_inject_spin");
	if (IS_ERR(task))
		return PTR_ERR(task);
	/* The thread always completes before exiting, so @spin outlives it. */
	wait_for_completion(&spin.done);
	return 0;
}

/* Admit one request: 0, or -EBUSY past the per-second budget. Called locked. */
static int rtlab_inject_admit(void)
{
	if (!rtlab_inject_window_start ||
	    time_after(jiffies, rtlab_inject_window_start + HZ)) {
		rtlab_inject_window_start = jiffies;
		rtlab_inject_window_count = 0;
	}
	if (rtlab_inject_window_count >= RTLAB_INJECT_MAX_PER_SEC)
		return -EBUSY;
	rtlab_inject_window_count++;
	return 0;
}

static ssize_t rtlab_inject_write(struct file *file, const char __user *ubuf, size_t len,
				  loff_t *ppos)
{
	enum rtlab_inject_kind kind = (uintptr_t)file->private_data;
	unsigned int us;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &us);
	if (ret)
		return ret;

	mutex_lock(&rtlab_inject_lock);
	if (us == 0 || us > RTLAB_INJECT_MAX_US) {
		ret = -EINVAL;
		goto out_refused;
	}
	ret = rtlab_inject_admit();
	if (ret)
		goto out_refused;

	switch (kind) {
	case RTLAB_INJECT_IRQSOFF:
		rtlab_inject_irqsoff_section(us);
		break;
	case RTLAB_INJECT_PREEMPTOFF:
		rtlab_inject_preemptoff_section(us);
		break;
	case RTLAB_INJECT_SOFTIRQ:
		rtlab_inject_softirq(us);
		break;
	case RTLAB_INJECT_FIFO_SPIN:
		ret = rtlab_inject_fifo_spin(us);
		break;
	default:
		ret = -EINVAL;
	}
	if (ret)
		goto out_refused;
	rtlab_inject_done[kind]++;
	mutex_unlock(&rtlab_inject_lock);
	return len;

out_refused:
	rtlab_inject_refused++;
	mutex_unlock(&rtlab_inject_lock);
	return ret;
}

static const struct file_operations rtlab_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = rtlab_inject_write,
	.llseek = noop_llseek,
};

static int rtlab_inject_stats_show(struct seq_file *m, void *v)
{
	int i;

	mutex_lock(&rtlab_inject_lock);
	for (i = 0; i < RTLAB_INJECT_NKINDS; i++)
		seq_printf(m, "%s %lu\n", rtlab_inject_names[i], rtlab_inject_done[i]);
	seq_printf(m, "refused %lu\n", rtlab_inject_refused);
	seq_printf(m, "max_us %u\n", RTLAB_INJECT_MAX_US);
	seq_printf(m, "max_per_sec %u\n", RTLAB_INJECT_MAX_PER_SEC);
	mutex_unlock(&rtlab_inject_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtlab_inject_stats);

static int __init rtlab_inject_init(void)
{
	uintptr_t i;

	rtlab_inject_dir = debugfs_create_dir("rtlab_inject", NULL);
	if (IS_ERR(rtlab_inject_dir))
		return PTR_ERR(rtlab_inject_dir);
	for (i = 0; i < RTLAB_INJECT_NKINDS; i++)
		debugfs_create_file(rtlab_inject_names[i], 0200, rtlab_inject_dir, (void *)i,
				    &rtlab_inject_fops);
	debugfs_create_file("stats", 0444, rtlab_inject_dir, NULL, &rtlab_inject_stats_fops);
	return 0;
}

static void __exit rtlab_inject_exit(void)
{
	debugfs_remove_recursive(rtlab_inject_dir);
	/* A write in progress holds a reference on the module, so no section is running. */
	tasklet_kill(&rtlab_inject_tasklet);
}

module_init(rtlab_inject_init);
module_exit(rtlab_inject_exit);

MODULE_DESCRIPTION("rtlab latency injector: irqs-off, preempt-off, softirq and SCHED_FIFO sections");
MODULE_AUTHOR("rtlab");
MODULE_LICENSE("GPL");
