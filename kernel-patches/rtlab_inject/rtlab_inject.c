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
 *   irq_thread_us  in the thread of a threaded interrupt (rtlab_inject_irq_thread_section)
 *   hardirq_us     in an interrupt handler registered without a thread
 *                  (rtlab_inject_hardirq_section): hard-irq context, unless the
 *                  kernel forces threading (PREEMPT_RT, or the threadirqs parameter)
 *   raw_spinlock_us  holding a raw_spinlock_t, interrupts off (rtlab_inject_raw_lock_section)
 *   spinlock_us    holding a spinlock_t, with spin_lock_irqsave (rtlab_inject_spinlock_section):
 *                  the same as the raw lock on other kernels, a sleeping lock with
 *                  priority inheritance and interrupts on under PREEMPT_RT
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
 * The two interrupts are real ones, in /proc/interrupts, with the IRQ core's threads
 * (irq/N-rtlab_inject, and irq/M-rtlab_hardirq where threading is forced) whose
 * priority chrt -p can change; see "The interrupts" below.
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
#include <linux/irq.h>
#include <linux/hrtimer.h>
#include <linux/spinlock.h>

#define RTLAB_INJECT_MAX_US	10000U
#define RTLAB_INJECT_MAX_PER_SEC	10U

enum rtlab_inject_kind {
	RTLAB_INJECT_IRQSOFF,
	RTLAB_INJECT_PREEMPTOFF,
	RTLAB_INJECT_SOFTIRQ,
	RTLAB_INJECT_FIFO_SPIN,
	RTLAB_INJECT_IRQ_THREAD,
	RTLAB_INJECT_HARDIRQ,
	RTLAB_INJECT_RAW_LOCK,
	RTLAB_INJECT_SPINLOCK,
	RTLAB_INJECT_NKINDS,
};

static const char *const rtlab_inject_names[RTLAB_INJECT_NKINDS] = {
	[RTLAB_INJECT_IRQSOFF] = "irqsoff_us",
	[RTLAB_INJECT_PREEMPTOFF] = "preemptoff_us",
	[RTLAB_INJECT_SOFTIRQ] = "softirq_us",
	[RTLAB_INJECT_FIFO_SPIN] = "fifo_spin_us",
	[RTLAB_INJECT_IRQ_THREAD] = "irq_thread_us",
	[RTLAB_INJECT_HARDIRQ] = "hardirq_us",
	[RTLAB_INJECT_RAW_LOCK] = "raw_spinlock_us",
	[RTLAB_INJECT_SPINLOCK] = "spinlock_us",
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

/*
 * The lock sections. Both take their lock with interrupts saved and disabled, the
 * usual form for data an interrupt handler also touches. On a kernel without
 * PREEMPT_RT the two are the same: a spinning lock, preemption and interrupts off.
 * Under PREEMPT_RT a spinlock_t is an rt_mutex: spin_lock_irqsave() neither disables
 * interrupts nor preemption, the holder can be preempted and a waiter lends it its
 * priority; a raw_spinlock_t still spins with interrupts off.
 */
static DEFINE_RAW_SPINLOCK(rtlab_inject_raw_lock);
static DEFINE_SPINLOCK(rtlab_inject_spinlock);

static noinline void rtlab_inject_raw_lock_section(unsigned int us)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&rtlab_inject_raw_lock, flags);
	rtlab_inject_busy(us);
	raw_spin_unlock_irqrestore(&rtlab_inject_raw_lock, flags);
}

static noinline void rtlab_inject_spinlock_section(unsigned int us)
{
	unsigned long flags;

	spin_lock_irqsave(&rtlab_inject_spinlock, flags);
	rtlab_inject_busy(us);
	spin_unlock_irqrestore(&rtlab_inject_spinlock, flags);
}

/*
 * The interrupts. There is no device, so the interrupts come from software, in the
 * way a device's would arrive: two interrupt descriptors of our own
 * (irq_alloc_descs()) driven by dummy_irq_chip with handle_simple_irq, and raised by
 * generic_handle_irq() from an hrtimer that expires in hard-irq context
 * (HRTIMER_MODE_REL_HARD; a plain hrtimer expires in a softirq thread on PREEMPT_RT).
 * Everything used here exists in 6.1 and 6.12, and the out-of-tree module's calls
 * are exported there (GPL): __irq_alloc_descs, irq_free_descs, irq_modify_status,
 * irq_set_chip_and_handler_name, dummy_irq_chip, handle_simple_irq,
 * generic_handle_irq, hrtimer_init. (hrtimer_setup(), which replaces hrtimer_init()
 * in later kernels, is not in 6.1; irq_work would not give a descriptor, so neither
 * /proc/interrupts nor an IRQ thread.)
 *
 * irq_thread_us: registered with request_threaded_irq() and IRQF_ONESHOT. The primary
 * handler only notes the time and returns IRQ_WAKE_THREAD; the IRQ core's thread
 * irq/N-rtlab_inject (SCHED_FIFO 50 by default, on every kernel) runs the section.
 * IRQF_ONESHOT keeps forced threading away from it, so the primary stays in hard-irq
 * context on PREEMPT_RT too. The delay from the primary to the thread's start is kept
 * (stats: irq_thread_delay_last_ns, irq_thread_delay_max_ns).
 *
 * hardirq_us: registered with request_irq(), no thread. Its handler runs the section
 * in hard-irq context, unless the kernel forces interrupt threading (PREEMPT_RT, or
 * the threadirqs parameter), which moves it into irq/M-rtlab_hardirq.
 */
#define RTLAB_INJECT_NIRQS	2
#define RTLAB_INJECT_RAISE_NS	1000

static int rtlab_inject_irq_base = -1;
static struct hrtimer rtlab_inject_timer;
static unsigned int rtlab_inject_irq_len;
static int rtlab_inject_irq_target;
static u64 rtlab_inject_irq_raised_ns;
static u64 rtlab_inject_irq_delay_last_ns, rtlab_inject_irq_delay_max_ns;
static DECLARE_COMPLETION(rtlab_inject_irq_done);
static char rtlab_inject_dev;	/* the dev_id of both actions */

static enum hrtimer_restart rtlab_inject_timer_fn(struct hrtimer *t)
{
	generic_handle_irq(READ_ONCE(rtlab_inject_irq_target));
	return HRTIMER_NORESTART;
}

static irqreturn_t rtlab_inject_irq_primary(int irq, void *dev)
{
	WRITE_ONCE(rtlab_inject_irq_raised_ns, local_clock());
	return IRQ_WAKE_THREAD;
}

static noinline void rtlab_inject_irq_thread_section(unsigned int us)
{
	rtlab_inject_busy(us);
}

static irqreturn_t rtlab_inject_irq_thread(int irq, void *dev)
{
	u64 delay = local_clock() - READ_ONCE(rtlab_inject_irq_raised_ns);

	WRITE_ONCE(rtlab_inject_irq_delay_last_ns, delay);
	if (delay > READ_ONCE(rtlab_inject_irq_delay_max_ns))
		WRITE_ONCE(rtlab_inject_irq_delay_max_ns, delay);
	rtlab_inject_irq_thread_section(READ_ONCE(rtlab_inject_irq_len));
	complete(&rtlab_inject_irq_done);
	return IRQ_HANDLED;
}

static noinline void rtlab_inject_hardirq_section(unsigned int us)
{
	rtlab_inject_busy(us);
}

static irqreturn_t rtlab_inject_hardirq(int irq, void *dev)
{
	rtlab_inject_hardirq_section(READ_ONCE(rtlab_inject_irq_len));
	complete(&rtlab_inject_irq_done);
	return IRQ_HANDLED;
}

/* Raise interrupt @irq in RTLAB_INJECT_RAISE_NS; return once its section ran. */
static void rtlab_inject_raise(int irq, unsigned int us)
{
	reinit_completion(&rtlab_inject_irq_done);
	WRITE_ONCE(rtlab_inject_irq_len, us);
	WRITE_ONCE(rtlab_inject_irq_target, irq);
	hrtimer_start(&rtlab_inject_timer, ns_to_ktime(RTLAB_INJECT_RAISE_NS),
		      HRTIMER_MODE_REL_HARD);
	wait_for_completion(&rtlab_inject_irq_done);
}

static int rtlab_inject_irqs_init(void)
{
	int base, i, ret;

	base = irq_alloc_descs(-1, 1, RTLAB_INJECT_NIRQS, NUMA_NO_NODE);
	if (base < 0)
		return base;
	for (i = 0; i < RTLAB_INJECT_NIRQS; i++) {
		irq_set_chip_and_handler(base + i, &dummy_irq_chip, handle_simple_irq);
		irq_modify_status(base + i, IRQ_NOREQUEST | IRQ_NOAUTOEN, IRQ_NOPROBE);
	}
	ret = request_threaded_irq(base, rtlab_inject_irq_primary, rtlab_inject_irq_thread,
				   IRQF_ONESHOT, "rtlab_inject", &rtlab_inject_dev);
	if (ret)
		goto out_descs;
	ret = request_irq(base + 1, rtlab_inject_hardirq, 0, "rtlab_hardirq", &rtlab_inject_dev);
	if (ret)
		goto out_irq;
	hrtimer_init(&rtlab_inject_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	rtlab_inject_timer.function = rtlab_inject_timer_fn;
	rtlab_inject_irq_base = base;
	return 0;

out_irq:
	free_irq(base, &rtlab_inject_dev);
out_descs:
	irq_free_descs(base, RTLAB_INJECT_NIRQS);
	return ret;
}

static void rtlab_inject_irqs_exit(void)
{
	int i;

	if (rtlab_inject_irq_base < 0)
		return;
	hrtimer_cancel(&rtlab_inject_timer);
	for (i = 0; i < RTLAB_INJECT_NIRQS; i++) {
		free_irq(rtlab_inject_irq_base + i, &rtlab_inject_dev);
		irq_set_chip_and_handler(rtlab_inject_irq_base + i, NULL, NULL);
	}
	irq_free_descs(rtlab_inject_irq_base, RTLAB_INJECT_NIRQS);
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
	case RTLAB_INJECT_IRQ_THREAD:
	case RTLAB_INJECT_HARDIRQ:
		if (rtlab_inject_irq_base < 0) {
			ret = -ENODEV;
			break;
		}
		rtlab_inject_raise(rtlab_inject_irq_base + (kind == RTLAB_INJECT_HARDIRQ), us);
		break;
	case RTLAB_INJECT_RAW_LOCK:
		rtlab_inject_raw_lock_section(us);
		break;
	case RTLAB_INJECT_SPINLOCK:
		rtlab_inject_spinlock_section(us);
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
	seq_printf(m, "irq %d\n", rtlab_inject_irq_base);
	seq_printf(m, "hardirq %d\n", rtlab_inject_irq_base < 0 ? -1 : rtlab_inject_irq_base + 1);
	seq_printf(m, "irq_thread_delay_last_ns %llu\n",
		   (unsigned long long)READ_ONCE(rtlab_inject_irq_delay_last_ns));
	seq_printf(m, "irq_thread_delay_max_ns %llu\n",
		   (unsigned long long)READ_ONCE(rtlab_inject_irq_delay_max_ns));
	mutex_unlock(&rtlab_inject_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtlab_inject_stats);

static int __init rtlab_inject_init(void)
{
	uintptr_t i;
	int ret;

	/* Without its interrupts the injector still offers every other section. */
	ret = rtlab_inject_irqs_init();
	if (ret)
		pr_warn("rtlab_inject: no interrupts (%d): irq_thread_us and hardirq_us fail with ENODEV\n",
			ret);
	rtlab_inject_dir = debugfs_create_dir("rtlab_inject", NULL);
	if (IS_ERR(rtlab_inject_dir)) {
		rtlab_inject_irqs_exit();
		return PTR_ERR(rtlab_inject_dir);
	}
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
	rtlab_inject_irqs_exit();
}

module_init(rtlab_inject_init);
module_exit(rtlab_inject_exit);

MODULE_DESCRIPTION("rtlab latency injector: irqs-off, preempt-off, softirq, SCHED_FIFO, interrupt and lock sections");
MODULE_AUTHOR("rtlab");
MODULE_LICENSE("GPL");
