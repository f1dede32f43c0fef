/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_nop_netns: the nop lab on a real medium (--medium netns, root only).
 *
 * Each node is a process of its own in a network namespace of its own
 * (rtlab-nop-PID-I), its eth0 one end of a veth pair whose other end is a
 * port of a Linux bridge in a further "bus" namespace (rtlab-nop-PID-bus).
 * Nothing is created in the root namespace. The namespaces are made
 * through the journal (rt_journal_create_netns()), so a run that is killed
 * is cleaned by the next start or `rtlab doctor --restore`; at the end the
 * node processes are stopped by pid first, then the run session's journal
 * deletes the namespaces, which removes the veths and the bridge with them.
 *
 * The nodes speak the same protocol as the model: raw Ethernet frames of
 * rtlab's EtherType (AF_PACKET, broadcast), carrying our frame format
 * (sim/sim_nop_frame.h) at a nominal 1 Mbit/s: a frame's arrival is its
 * start, which every node sees at once (carrier sense: a node about to
 * send defers to a frame that started first), and it ends B x 8 us later
 * for a frame of B bytes; sender and receivers wait for that end. Every node runs the reference monitor (sim_nop_monitor_ref()) on
 * what it hears and reports its verdicts to rtlab through a pipe. The
 * nodes run at SCHED_FIFO; rtlab first measures the scheduling jitter of
 * this machine and adds a budget of it to the gap, so the timeout is the
 * longest frame plus the gap plus that budget, and records both.
 *
 * Faults are injected by rtlab itself: crash kills the node's process
 * (SIGKILL, by pid); babble, skip, corrupt, late and dup are orders to the
 * node, which misbehaves at its next turn. With --inject netem or both,
 * skip, corrupt and late are (also) injected from outside the node by tc
 * netem on its eth0 (loss 100%, corrupt 100%, a delay between the late
 * threshold and the timeout), from the moment of injection until the
 * first verdict on that node (or the detection bound) has passed; "both"
 * injects each such fault twice, rtlab's at its time and netem's twin one
 * detection bound later, and reports the two as scenarios side by side
 * ("nop" and "nop-netem"). netem needs sch_netem, which the classroom VM's
 * kernels have and the hosts this was written on do not: rtlab tries it
 * on the first node's veth before the run and says so when it fails. NOP
 * only: TDMA's clocks are the model's.
 */
#include "lab_nop_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_child.h"
#include "core/rt_err.h"
#include "core/rt_journal.h"
#include "core/rt_log.h"
#include "core/rt_result.h"
#include "core/rt_sink.h"
#include "core/rt_which.h"
#include "sim/sim_nop_frame.h"

#define NN_BYTE_NS 8000ull	/* 1 Mbit/s nominal: 8 us a byte */
#define NN_GAP_NS 200000ull	/* 200 us: frames of two senders keep their order */
#define NN_FRAME_MAX 100u	/* bytes */
#define NN_PRIO 50
#define NN_START_NS 300000000ull	/* from the go to the first turn */
#define NN_BABBLE_MAX 3u	/* out-of-turn frames per babble order */
#define NN_VM_BUDGET_MIN_NS 40000000ull	/* the jitter budget's floor in the classroom VM */

static const uint16_t nn_frames[4] = { 30, 100, 0, 45 };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000ull), (long)(t % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* ---- The jitter budget ------------------------------------------------------------- */

/* The worst overshoot of 1 ms sleeps at SCHED_FIFO over @ms milliseconds, in ns. */
static uint64_t measure_jitter(unsigned int ms)
{
	struct sched_param sp = { .sched_priority = NN_PRIO };
	struct sched_param old_sp;
	int old = sched_getscheduler(0);
	uint64_t worst = 0, t = now_ns();

	sched_getparam(0, &old_sp);
	sched_setscheduler(0, SCHED_FIFO, &sp);
	for (unsigned int i = 0; i < ms; i++) {
		uint64_t late;

		t += 1000000;
		sleep_until(t);
		late = now_ns() - t;
		if (late > worst)
			worst = late;
	}
	sched_setscheduler(0, old, &old_sp);
	return worst;
}

/* ---- A node ------------------------------------------------------------------------ */

struct nn_node {
	unsigned int id, nodes;
	int cmd_fd;		/* orders from rtlab */
	int rep_fd;		/* reports to rtlab (shared pipe, lines < PIPE_BUF) */
	uint64_t start, end;	/* the first turn begins at start; stop at end */
	uint64_t gap_max, timeout, late;
	uint64_t members;
	bool babble, skip, corrupt, dup, latef, silenced;
	unsigned int babbled;
	uint8_t announce;	/* the node our next frame announces as excluded */
	bool seen_since_out;	/* a frame went by since we were dropped */
	uint64_t joined_at;	/* when we last rejoined */
	bool after_silence;	/* the last turn ended in a timeout */
};

static void rep(const struct nn_node *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rep(const struct nn_node *n, const char *fmt, ...)
{
	char line[128];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (len > 0 && (size_t)len < sizeof(line))
		(void)!write(n->rep_fd, line, (size_t)len);
}

static uint32_t nn_next(uint64_t members, uint32_t pos, uint32_t nodes)
{
	for (uint32_t i = 1; i <= nodes; i++) {
		uint32_t k = (pos + i) % nodes;

		if (members & (1ull << k))
			return k;
	}
	return SIM_NOP_NONE;
}

/* Send a frame of @bytes after holding the medium for its time; returns its end. */
static uint64_t nn_send(struct nn_node *n, int sock, const struct sockaddr_ll *to, uint32_t type,
			unsigned int bytes, bool corrupt)
{
	static const uint8_t payload[NN_FRAME_MAX] = { 0 };
	struct sim_nop_frame f = { (uint8_t)type, (uint8_t)n->id, n->announce, 0,
				   (uint16_t)(bytes - SIM_NOP_FRAME_MIN), payload };
	uint8_t buf[NN_FRAME_MAX + 16];
	int len = sim_nop_frame_encode(&f, buf, sizeof(buf));
	uint64_t start;

	if (len < 0)
		return now_ns();
	n->announce = SIM_NOP_ANNOUNCE_NONE;	/* said once */
	if (corrupt)
		buf[len - 1] ^= 0x40;	/* in the CRC: the frame is ours, and bad */
	/* Its arrival is the frame's start (carrier sense); it ends bytes x 8 us later. */
	start = now_ns();
	(void)!sendto(sock, buf, (size_t)len, 0, (const struct sockaddr *)to, sizeof(*to));
	rep(n, "S %llu %u %u %u\n", (unsigned long long)start, n->id, bytes, type);
	sleep_until(start + (uint64_t)bytes * NN_BYTE_NS);
	return start + (uint64_t)bytes * NN_BYTE_NS;
}

/*
 * The monitor on a frame we sent ourselves: every node judges every frame,
 * its own included, so a node that sent a bad, late or foreign frame
 * drops itself as the others drop it (and a babbler is silenced).
 */
static void nn_self(struct nn_node *n, uint64_t start, uint64_t end, uint64_t t_end, uint32_t e,
		    uint32_t prev_src, uint32_t type, bool ok, uint64_t extra)
{
	struct sim_nop_obs o = { .now_ns = end, .turn_start_ns = t_end, .expected = e,
				 .prev_src = prev_src, .frame = true, .crc_ok = ok,
				 .member = true, .src = n->id, .type = type, .start_ns = start,
				 .end_ns = end, .gap_max_ns = n->gap_max + extra,
				 .timeout_ns = n->timeout + extra };
	struct sim_nop_verdict v = { SIM_NOP_F_NONE, SIM_NOP_NONE };

	if (type == SIM_NOP_T_JOIN)
		return;
	sim_nop_monitor_ref(NULL, &o, &v);
	if (v.kind == SIM_NOP_F_NONE || v.node >= n->nodes)
		return;
	rep(n, "V %llu %u %u %u\n", (unsigned long long)end, n->id, v.kind, v.node);
	n->members &= ~(1ull << v.node);
	if (v.node == n->id) {
		if (n->babble)
			n->silenced = true;
		n->seen_since_out = false;
	}
}

static void nn_order(struct nn_node *n, const char *line)
{
	int kind;

	if (sscanf(line, "F %d", &kind) != 1)
		return;
	switch (kind) {
	case SIM_NOP_F_BABBLE: n->babble = true; n->babbled = 0; break;
	case SIM_NOP_F_SKIP: n->skip = true; break;
	case SIM_NOP_F_CORRUPT: n->corrupt = true; break;
	case SIM_NOP_F_LATE: n->latef = true; break;
	case SIM_NOP_F_DUP: n->dup = true; break;
	default: break;
	}
}

static void nn_orders(struct nn_node *n)
{
	char buf[256];
	ssize_t len = read(n->cmd_fd, buf, sizeof(buf) - 1);

	if (len <= 0)
		return;
	buf[len] = 0;
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		nn_order(n, l);
}

/* The node's life: the protocol's loop until the end of the run. */
static int nn_node_main(struct nn_node *n, int sock, int ifindex)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_protocol = htons(SIM_NOP_ETHERTYPE),
				  .sll_ifindex = ifindex, .sll_halen = 6,
				  .sll_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
	uint64_t t_end = n->start;
	uint32_t last_pos = n->nodes - 1, prev_src = SIM_NOP_NONE;
	bool prev_own = false;

	while (now_ns() < n->end) {
		uint32_t e = nn_next(n->members, last_pos, n->nodes);
		bool me_member = (n->members >> n->id) & 1;
		/*
		 * Out, not silenced, and a frame went by since (so every node has
		 * dropped us too): rejoin. On a real medium the nodes cannot agree
		 * on a moment for it, so a join frame counts wherever it comes.
		 */
		bool my_place = !me_member && !n->silenced && n->seen_since_out;
		struct sim_nop_obs o = { 0 };
		struct sim_nop_verdict v = { SIM_NOP_F_NONE, SIM_NOP_NONE };
		struct pollfd pf[2] = { { sock, POLLIN, 0 }, { n->cmd_fd, POLLIN, 0 } };
		/*
		 * After a silent turn every node timed out by its own clock, some up
		 * to the jitter budget later than others, and the next sender waits
		 * that budget more (below): every monitor allows it that much more,
		 * for the start and for the timeout (the bound counts a turn after a
		 * silent one as T_to + the budget). Without it the successor of a
		 * crashed node is blamed late by every node that timed out first.
		 */
		uint64_t extra = n->after_silence ? n->gap_max - NN_GAP_NS : 0;
		uint64_t deadline = t_end + n->timeout + extra;

		if ((e == n->id && me_member && !n->silenced) || my_place) {
			/* A rejoining node goes first (half a gap), before the member. */
			/*
			 * After a silent turn every node timed out by its own clock, some
			 * up to the jitter budget later than we did: wait that long too, so
			 * that none of them is still waiting for the silent node.
			 */
			uint64_t at = t_end + (my_place ? NN_GAP_NS / 2 : NN_GAP_NS) +
				      (n->latef && !my_place ? n->late : 0) + extra;
			unsigned int bytes = nn_frames[n->id % 4] ? nn_frames[n->id % 4] :
					     SIM_NOP_FRAME_MIN;
			uint64_t now = now_ns();
			struct pollfd cs = { sock, POLLIN, 0 };

			/* Carrier sense: a frame before our start (a join, a babbler) goes first. */
			struct timespec wait = { (time_t)((at > now ? at - now : 0) / 1000000000ull),
						 (long)((at > now ? at - now : 0) % 1000000000ull) };

			if (at > now && ppoll(&cs, 1, &wait, NULL) > 0) {
				/* handled below, as any frame; our turn comes again after it */
			} else if (n->skip && !my_place) {
				n->skip = false;	/* silent this turn: the others find it */
				n->latef = false;
			} else {
				uint32_t type = my_place ? SIM_NOP_T_JOIN : bytes > SIM_NOP_FRAME_MIN ?
						SIM_NOP_T_DATA : SIM_NOP_T_EMPTY;
				uint64_t turn = t_end, end;
				bool bad = n->corrupt && !my_place;

				n->latef = false;
				sleep_until(at);
				if (my_place)
					bytes = SIM_NOP_FRAME_MIN;
				end = nn_send(n, sock, &to, type, bytes, bad);
				t_end = end;
				n->after_silence = false;
				nn_self(n, end - bytes * NN_BYTE_NS, end, turn, e, prev_src, type, !bad,
					extra);
				if (my_place) {
					n->members |= 1ull << n->id;
					n->joined_at = end;
					rep(n, "J %llu %u\n", (unsigned long long)t_end, n->id);
					continue;	/* not a turn */
				}
				n->corrupt = false;
				last_pos = n->id;
				prev_src = n->id;
				prev_own = true;
				if (n->dup && !my_place) {
					/* The impostor with our id answers our own frame. */
					uint64_t turn2 = t_end;

					n->dup = false;
					sleep_until(t_end + NN_GAP_NS / 2);
					t_end = nn_send(n, sock, &to, SIM_NOP_T_DATA, NN_FRAME_MAX,
							false);
					nn_self(n, t_end - NN_FRAME_MAX * NN_BYTE_NS, t_end, turn2,
						nn_next(n->members, n->id, n->nodes), n->id,
						SIM_NOP_T_DATA, true, 0);
					prev_own = false;
				}
				continue;
			}
		}
		/* Someone else's turn (or ours, skipped): a frame, an order, or the timeout. */
		if (n->babble && me_member && !n->silenced && n->babbled < NN_BABBLE_MAX &&
		    e != n->id) {
			uint64_t end;

			n->babbled++;
			sleep_until(t_end + NN_GAP_NS / 4);
			end = nn_send(n, sock, &to, SIM_NOP_T_DATA, NN_FRAME_MAX, false);
			nn_self(n, end - NN_FRAME_MAX * NN_BYTE_NS, end, t_end, e, prev_src,
				SIM_NOP_T_DATA, true, extra);
			t_end = end;
			prev_src = n->id;
			continue;
		}
		for (;;) {
			uint64_t now = now_ns();
			int ms = now >= deadline ? 0 : (int)((deadline - now) / 1000000) + 1;
			uint8_t buf[1600];
			struct sockaddr_ll from;
			socklen_t fl = sizeof(from);
			struct sim_nop_frame f;
			ssize_t len;
			int dec;

			if (now >= n->end)
				return 0;
			if (now >= deadline) {
				o.now_ns = deadline;
				o.frame = false;
				break;
			}
			if (poll(pf, 2, ms) <= 0)
				continue;
			if (pf[1].revents & POLLIN)
				nn_orders(n);
			if (!(pf[0].revents & POLLIN))
				continue;
			len = recvfrom(sock, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
			if (len <= 0 || from.sll_pkttype == PACKET_OUTGOING)
				continue;
			now = now_ns();
			dec = sim_nop_frame_decode(buf, (size_t)len, &f, NULL);
			if (dec == -EINVAL)
				continue;	/* not ours */
			/* It started now; it ends when its bytes have gone by. */
			o.start_ns = now;
			o.now_ns = o.end_ns = now + (uint64_t)(dec >= 0 ? dec : 10) * NN_BYTE_NS;
			sleep_until(o.end_ns);
			o.frame = true;
			o.crc_ok = dec >= 0;
			o.src = dec >= 0 ? f.src : e;
			o.type = dec >= 0 ? f.type : SIM_NOP_T_DATA;
			o.member = o.src < n->nodes && ((n->members >> o.src) & 1);
			/*
			 * A frame that announces us as dropped (a verdict we could not
			 * see, a late frame of ours the others timed out): we rejoin.
			 */
			if (dec >= 0 && f.announce == n->id && ((n->members >> n->id) & 1) &&
			    now > n->joined_at + (uint64_t)(n->nodes + 1) * n->timeout) {
				/* (an announcement older than our last join is stale) */
				n->members &= ~(1ull << n->id);
				n->seen_since_out = false;
				n->skip = n->corrupt = n->latef = false;
			}
			break;
		}
		o.turn_start_ns = t_end;
		o.expected = e;
		o.prev_src = prev_src;
		o.gap_max_ns = n->gap_max + extra;
		o.timeout_ns = n->timeout + extra;
		/* A join frame is never a fault here, even a repeated one: it is not a turn. */
		if (!(o.frame && o.crc_ok && o.type == SIM_NOP_T_JOIN))
			sim_nop_monitor_ref(NULL, &o, &v);
		if (v.kind != SIM_NOP_F_NONE && v.node < n->nodes) {
			rep(n, "V %llu %u %u %u\n", (unsigned long long)o.now_ns, n->id, v.kind,
			    v.node);
			n->members &= ~(1ull << v.node);
			n->announce = (uint8_t)v.node;
			if (v.node == n->id)
				n->seen_since_out = false;
			if (v.node == n->id && (n->babble || n->dup))
				n->silenced = true;	/* our own guardian cuts us off */
			if (v.node == n->id) {
				n->skip = n->corrupt = n->latef = false;
			}
		}
		n->after_silence = !o.frame;
		if (!o.frame) {
			n->seen_since_out = n->seen_since_out || v.node != n->id;
			t_end = o.now_ns;
			last_pos = e;
			prev_src = SIM_NOP_NONE;
			prev_own = false;
			continue;
		}
		n->seen_since_out = true;
		t_end = o.now_ns;
		if (o.type == SIM_NOP_T_JOIN && o.crc_ok && o.src < n->nodes) {
			n->members |= 1ull << o.src;	/* not a turn: the order goes on */
			continue;
		}
		if (o.src == e)
			last_pos = e;
		prev_src = o.src;
		(void)prev_own;
	}
	return 0;
}

struct nn_child {
	pid_t pid;
	int cmd_w;		/* the write end of its orders */
	bool dead;
};

/* Fork node @id into namespace @ns; returns its pid or a negative errno. */
static pid_t nn_fork(struct nn_node *tmpl, unsigned int id, const char *ns, int rep_w, int cmd_r,
		     int ready_w)
{
	pid_t parent = getpid(), pid = fork();
	char path[128];
	int fd, sock, ifindex;
	struct sockaddr_ll addr = { .sll_family = AF_PACKET };
	struct sched_param sp = { .sched_priority = NN_PRIO };
	struct nn_node n;
	char go[64];

	if (pid)
		return pid < 0 ? -errno : pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET) < 0)
		_exit(2);
	close(fd);
	ifindex = (int)if_nametoindex("eth0");
	sock = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(SIM_NOP_ETHERTYPE));
	addr.sll_protocol = htons(SIM_NOP_ETHERTYPE);
	addr.sll_ifindex = ifindex;
	if (!ifindex || sock < 0 || bind(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		_exit(3);
	n = *tmpl;
	n.id = id;
	n.cmd_fd = cmd_r;
	n.rep_fd = rep_w;
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		rep(&n, "W %u no-fifo\n", id);
	rep(&n, "R %u\n", id);
	/* The go: the start and end times, from rtlab. */
	{
		ssize_t len = read(ready_w, go, sizeof(go) - 1);
		unsigned long long s, e;

		if (len <= 0)
			_exit(4);
		go[len] = 0;
		if (sscanf(go, "G %llu %llu", &s, &e) != 2)
			_exit(5);
		n.start = s;
		n.end = e;
	}
	fcntl(cmd_r, F_SETFL, O_NONBLOCK);
	_exit(nn_node_main(&n, sock, ifindex));
}

/* ---- rtlab's side ---------------------------------------------------------------- */

/* Who injected a fault: the index of its scenario. */
enum nn_via { NN_VIA_RTLAB, NN_VIA_NETEM, NN_NVIA };

static const char *const nn_via_scenario[NN_NVIA] = { "nop", "nop-netem" };

/* One injection of the run, in time order. */
struct nn_inj {
	uint64_t time_ns;	/* from the start of the run */
	uint8_t kind, node, via;
};

#define NN_INJ_MAX (2 * SIM_NOP_FAULTS_MAX)

struct nn_run {
	char prefix[48];
	unsigned int nodes;
	char *ip, *tc;
	struct nn_child child[SIM_NOP_NODES_MAX];
	int go_w[SIM_NOP_NODES_MAX];
	int rep_r;
	struct nn_inj inj[NN_INJ_MAX];
	unsigned int ninj, twins_dropped;
	/* accounting */
	uint64_t pend[SIM_NOP_NODES_MAX];	/* injection time of a pending fault, or 0 */
	uint8_t via[SIM_NOP_NODES_MAX];		/* who injected it */
	bool out[SIM_NOP_NODES_MAX];		/* excluded (a verdict seen, no join since) */
	uint64_t netem_until[SIM_NOP_NODES_MAX];	/* a netem qdisc on the node, until */
	bool netem_done[SIM_NOP_NODES_MAX];	/* a verdict came: remove it now */
	uint64_t injected[NN_NVIA], detected[NN_NVIA], det_max[NN_NVIA], det_sum[NN_NVIA];
	uint64_t over[NN_NVIA], false_pos;
	uint64_t frames, data_ns, busy_ns, data_bytes, verdicts, joins;
	bool no_fifo;
	json_t *rows;
	FILE *trace;		/* every report, when $RTLAB_NOP_TRACE names a file */
	unsigned int pct;	/* the progress shown last */
};

/* Run @argv (ip or tc, argv[0] its path) to its end; its output is the cause of a failure. */
static int nn_exec(char **argv, char **cause)
{
	struct rt_child_opts co = { .argv = argv, .in = RT_CHILD_NULL, .out = RT_CHILD_CAPTURE,
				    .err = RT_CHILD_TO_STDOUT };
	struct rt_child_result res;
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	int ret;

	ret = rt_child_run(&co, 10000, &res, cause);
	if (ret)
		return ret;
	if (res.end != RT_CHILD_EXITED || res.code != 0) {
		size_t len = res.out ? strlen(res.out) : 0;

		while (len && res.out[len - 1] == '\n')
			res.out[--len] = '\0';
		ret = rt_err(cause, -EIO, "%s %s %s %s %s ...: %s", name, argv[1], argv[2],
			     argv[3], argv[4] ? argv[4] : "", len ? res.out : "failed");
	}
	rt_child_result_fini(&res);
	return ret;
}

static int nn_ip(struct nn_run *r, char **argv, char **cause)
{
	argv[0] = r->ip;
	return nn_exec(argv, cause);
}

/* The faults tc netem can make from outside a node. */
static bool nn_netem_can(uint8_t kind)
{
	return kind == SIM_NOP_F_SKIP || kind == SIM_NOP_F_CORRUPT || kind == SIM_NOP_F_LATE;
}

/*
 * A netem qdisc on node @i's eth0 for a fault of @kind (SIM_NOP_F_NONE: a
 * 1 ms delay, the probe), or none (@add false). A late frame is delayed
 * past the late threshold (gap + budget) but not to the timeout (the
 * longest frame later): @budget + 400 us.
 */
static int nn_netem(struct nn_run *r, unsigned int i, bool add, uint8_t kind, uint64_t budget,
		    char **cause)
{
	char ns[64], delay[32];
	char *argv[] = { r->tc, "-n", ns, "qdisc", add ? "add" : "del", "dev", "eth0", "root",
			 add ? "netem" : NULL, NULL, NULL, NULL };

	snprintf(ns, sizeof(ns), "%s-%u", r->prefix, i);
	snprintf(delay, sizeof(delay), "%lluus", kind == SIM_NOP_F_NONE ? 1000ull :
		 (unsigned long long)((budget + 400000) / 1000));
	if (add) {
		argv[9] = kind == SIM_NOP_F_SKIP ? "loss" : kind == SIM_NOP_F_CORRUPT ? "corrupt" :
			  "delay";
		argv[10] = kind == SIM_NOP_F_SKIP || kind == SIM_NOP_F_CORRUPT ? "100%" : delay;
	}
	return nn_exec(argv, cause);
}

/*
 * The run's injections from the scenario's faults, in time order: each
 * fault by rtlab, or (netem) the ones netem can make by netem instead, or
 * (both) those twice, netem's twin two detection bounds after rtlab's, so
 * that the first is detected and the node back before the second; a twin
 * that would not end within the run is left out (counted).
 */
static void nn_schedule(struct nn_run *r, const struct sim_nop_scenario *sc, int inject,
			uint64_t bound, uint64_t run_ns)
{
	r->ninj = 0;
	for (unsigned int i = 0; i < sc->nfaults && r->ninj < NN_INJ_MAX; i++) {
		const struct sim_nop_fault *f = &sc->faults[i];
		bool netem = nn_netem_can(f->kind) && inject != NOP_INJECT_RTLAB;
		uint64_t t = f->time_ns;

		if (!netem || inject == NOP_INJECT_BOTH)
			r->inj[r->ninj++] = (struct nn_inj){ t, f->kind, f->node, NN_VIA_RTLAB };
		if (!netem || r->ninj == NN_INJ_MAX)
			continue;
		if (inject == NOP_INJECT_BOTH) {
			t += 2 * bound;
			if (t + bound > run_ns) {
				r->twins_dropped++;
				continue;
			}
		}
		r->inj[r->ninj++] = (struct nn_inj){ t, f->kind, f->node, NN_VIA_NETEM };
	}
	for (unsigned int i = 1; i < r->ninj; i++)	/* insertion sort: few, nearly sorted */
		for (unsigned int j = i; j && r->inj[j].time_ns < r->inj[j - 1].time_ns; j--) {
			struct nn_inj t = r->inj[j];

			r->inj[j] = r->inj[j - 1];
			r->inj[j - 1] = t;
		}
}

static int nn_setup(struct nn_run *r, struct rt_journal *j, char **cause)
{
	char bus[64], node[64], port[16];
	int ret;

	snprintf(bus, sizeof(bus), "%s-bus", r->prefix);
	ret = rt_journal_create_netns(j, bus, cause);
	if (ret)
		return ret;
	{
		char *a[] = { NULL, "-n", bus, "link", "add", "br0", "type", "bridge", NULL };
		char *b[] = { NULL, "-n", bus, "link", "set", "br0", "up", NULL };

		ret = nn_ip(r, a, cause) ?: nn_ip(r, b, cause);
		if (ret)
			return ret;
	}
	for (unsigned int i = 0; i < r->nodes; i++) {
		snprintf(node, sizeof(node), "%s-%u", r->prefix, i);
		snprintf(port, sizeof(port), "p%u", i);
		ret = rt_journal_create_netns(j, node, cause);
		if (ret)
			return ret;
		{
			char *a[] = { NULL, "-n", bus, "link", "add", port, "type", "veth", "peer",
				      "name", "eth0", "netns", node, NULL };
			char *b[] = { NULL, "-n", bus, "link", "set", port, "master", "br0", "up",
				      NULL };
			char *c[] = { NULL, "-n", node, "link", "set", "eth0", "up", NULL };

			ret = nn_ip(r, a, cause) ?: nn_ip(r, b, cause) ?: nn_ip(r, c, cause);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* One report line from a node. */
static void nn_report(struct nn_run *r, const char *l, uint64_t t0, uint64_t bound)
{
	unsigned long long t;
	unsigned int a, b, c;

	if (r->trace)
		fprintf(r->trace, "%s\n", l);

	if (sscanf(l, "S %llu %u %u %u", &t, &a, &b, &c) == 4) {
		r->frames++;
		r->busy_ns += b * NN_BYTE_NS;
		if (c == SIM_NOP_T_DATA && b > SIM_NOP_FRAME_MIN) {
			r->data_ns += b * NN_BYTE_NS;
			r->data_bytes += b - SIM_NOP_FRAME_MIN;
		}
	} else if (sscanf(l, "J %llu %u", &t, &a) == 2 && a < r->nodes) {
		r->out[a] = false;
		r->joins++;
	} else if (sscanf(l, "V %llu %u %u %u", &t, &a, &b, &c) == 4 && c < r->nodes) {
		r->verdicts++;
		if (r->out[c])
			return;		/* the same verdict from another node */
		r->out[c] = true;
		if (r->netem_until[c])
			r->netem_done[c] = true;
		/*
		 * A verdict about an event before the injection (a node reports what
		 * it saw when it gets the CPU) is no detection of it.
		 */
		if (r->pend[c] && t >= r->pend[c]) {
			uint64_t lat = t - r->pend[c];
			unsigned int v = r->via[c];

			r->detected[v]++;
			r->det_sum[v] += lat;
			if (lat > r->det_max[v])
				r->det_max[v] = lat;
			if (lat > bound)
				r->over[v]++;
			json_array_append_new(r->rows, json_pack("[s, f, i, s, s, f, s]",
					      nn_via_scenario[v],
					      (double)(t - t0) / 1000.0, (int)c, "detected",
					      sim_nop_fault_names[b < SIM_NOP_NKINDS ? b : 0],
					      (double)lat / 1000.0, ""));
			r->pend[c] = 0;
		} else if (!r->child[c].dead) {
			r->false_pos++;
			json_array_append_new(r->rows, json_pack("[s, f, i, s, s, f, s]", "nop",
					      (double)(t - t0) / 1000.0, (int)c, "false positive",
					      sim_nop_fault_names[b < SIM_NOP_NKINDS ? b : 0], 0.0,
					      ""));
		}
	} else if (!strncmp(l, "W ", 2)) {
		r->no_fifo = true;
	}
}

static void nn_drain(struct nn_run *r, int ms, uint64_t t0, uint64_t bound)
{
	static char buf[1 << 16];
	static size_t have;
	struct pollfd pf = { r->rep_r, POLLIN, 0 };

	if (poll(&pf, 1, ms) <= 0)
		return;
	for (;;) {
		ssize_t len = read(r->rep_r, buf + have, sizeof(buf) - 1 - have);
		char *l, *nl;

		if (len <= 0)
			return;
		have += (size_t)len;
		buf[have] = 0;
		for (l = buf; (nl = strchr(l, '\n')); l = nl + 1) {
			*nl = 0;
			nn_report(r, l, t0, bound);
		}
		have -= (size_t)(l - buf);
		memmove(buf, l, have);
		if (have >= sizeof(buf) - 1)
			have = 0;
	}
}

static void nn_stop(struct nn_run *r)
{
	for (unsigned int i = 0; i < r->nodes; i++) {
		if (r->child[i].pid > 0) {
			kill(r->child[i].pid, SIGKILL);
			waitpid(r->child[i].pid, NULL, 0);
			r->child[i].pid = 0;
		}
		if (r->child[i].cmd_w >= 0)
			close(r->child[i].cmd_w);
		if (r->go_w[i] >= 0)
			close(r->go_w[i]);
		r->child[i].cmd_w = r->go_w[i] = -1;
	}
}

int nop_netns_run(struct lab_ctx *ctx, const struct rt_sink *sink, const struct nop_params *p,
		  struct lab_result *out)
{
	static struct nn_run r;
	struct sim_nop_fault fl[SIM_NOP_FAULTS_MAX];
	struct sim_nop_scenario sc;
	struct nn_node tmpl = { 0 };
	struct rt_result *res = NULL;
	json_t *scen = NULL, *scens = NULL, *extra;
	uint64_t jitter, budget, t0, end, bound, timeout;
	int rep[2] = { -1, -1 }, ret = 0;
	unsigned int next = 0;
	char *cause = NULL;

	memset(&r, 0, sizeof(r));
	for (unsigned int i = 0; i < SIM_NOP_NODES_MAX; i++)
		r.child[i].cmd_w = r.go_w[i] = -1;
	if (geteuid() != 0 || !ctx->journal) {
		rt_log(RT_LOG_ERR, "nop: --medium netns needs root (network namespaces, raw "
		       "frames, SCHED_FIFO) and the undo journal; run --medium sim, the "
		       "simulation, instead");
		return -EPERM;
	}
	r.ip = rt_which("ip");
	if (!r.ip) {
		rt_log(RT_LOG_ERR, "nop: --medium netns needs ip(8) (iproute2); run --medium sim");
		return -ENOENT;
	}
	r.nodes = p->nodes;
	r.rows = json_array();
	nop_scenario(p, SIM_NOP_PROTO_NOP, &sc, fl);	/* the faults in time order */
	if (getenv("RTLAB_NOP_TRACE"))
		r.trace = fopen(getenv("RTLAB_NOP_TRACE"), "we");
	snprintf(r.prefix, sizeof(r.prefix), "rtlab-nop-%d", (int)getpid());

	rt_sink_progress(sink, 0, "measuring this machine's scheduling jitter");
	jitter = measure_jitter(300);
	budget = jitter * 3 + 10000000;	/* three times the worst seen, and 10 ms */
	/*
	 * In the classroom VM the emulated CPUs stall for tens of milliseconds
	 * now and then, more than 0.3 s of measuring before the run shows: seen
	 * under TCG, budgets of 15 ms blamed correct nodes dozens of times and
	 * let one detection take 580 ms. There the budget is at least 40 ms.
	 */
	if (ctx->tier && !strcmp(ctx->tier, "vm") && budget < NN_VM_BUDGET_MIN_NS)
		budget = NN_VM_BUDGET_MIN_NS;
	timeout = NN_FRAME_MAX * NN_BYTE_NS + NN_GAP_NS + budget;
	/* Each turn at most T_to, or T_to + the budget after a silent one. */
	bound = (uint64_t)(r.nodes + 3) * (timeout + budget);
	tmpl.nodes = r.nodes;
	tmpl.gap_max = NN_GAP_NS + budget;
	tmpl.timeout = timeout;
	tmpl.late = budget + 200000;
	tmpl.members = r.nodes == 64 ? ~0ull : (1ull << r.nodes) - 1;
	tmpl.announce = SIM_NOP_ANNOUNCE_NONE;

	nn_schedule(&r, &sc, p->inject, bound, (uint64_t)p->duration_ms * 1000000);
	if (p->inject != NOP_INJECT_RTLAB) {
		r.tc = rt_which("tc");
		if (!r.tc) {
			ret = rt_err(&cause, -ENOENT, "--inject netem needs tc(8) from iproute2 "
				     "(apt-get install iproute2), or use --inject rtlab");
			goto out;
		}
	}

	rt_sink_progress(sink, 1, "creating the namespaces, the bridge and the veths");
	ret = nn_setup(&r, ctx->journal, &cause);
	if (ret)
		goto out;
	if (r.tc) {
		/* Does this kernel have netem? A qdisc on the first node's veth, and off again. */
		char *why = NULL;

		ret = nn_netem(&r, 0, true, SIM_NOP_F_NONE, 0, &why) ?:
		      nn_netem(&r, 0, false, SIM_NOP_F_NONE, 0, &why);
		if (ret) {
			ret = rt_err(&cause, -EOPNOTSUPP, "--inject %s: tc netem does not work on "
				     "this kernel (%s); the classroom VM's kernels have sch_netem "
				     "(rtlab vm run), or use --inject rtlab",
				     p->inject == NOP_INJECT_BOTH ? "both" : "netem",
				     why ? why : "failed");
			free(why);
			goto out;
		}
	}
	if (pipe2(rep, O_CLOEXEC) < 0) {
		ret = -errno;
		goto out;
	}
	r.rep_r = rep[0];
	for (unsigned int i = 0; i < r.nodes; i++) {
		int cmd[2], go[2];
		char ns[64];
		pid_t pid;

		snprintf(ns, sizeof(ns), "%s-%u", r.prefix, i);
		if (pipe2(cmd, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0) {
			ret = -errno;
			goto out;
		}
		pid = nn_fork(&tmpl, i, ns, rep[1], cmd[0], go[0]);
		close(cmd[0]);
		close(go[0]);
		r.child[i].cmd_w = cmd[1];
		r.go_w[i] = go[1];
		if (pid < 0) {
			ret = (int)pid;
			goto out;
		}
		r.child[i].pid = pid;
	}
	close(rep[1]);
	rep[1] = -1;
	fcntl(r.rep_r, F_SETFL, O_NONBLOCK);
	/* Wait for every node to be ready, then give the go. */
	{
		uint64_t give_up = now_ns() + 10000000000ull;
		char buf[512];
		unsigned int ready = 0;

		while (ready < r.nodes && now_ns() < give_up) {
			struct pollfd pf = { r.rep_r, POLLIN, 0 };
			ssize_t len;

			if (poll(&pf, 1, 100) <= 0)
				continue;
			len = read(r.rep_r, buf, sizeof(buf) - 1);
			if (len <= 0)
				continue;
			buf[len] = 0;
			for (char *l = buf; (l = strchr(l, 'R')); l++)
				ready++;
			if (strstr(buf, "W "))
				r.no_fifo = true;
		}
		if (ready < r.nodes) {
			ret = rt_err(&cause, -ETIMEDOUT, "%u of %u nodes came up in 10 s", ready,
				     r.nodes);
			goto out;
		}
	}
	t0 = now_ns() + NN_START_NS;
	end = t0 + (uint64_t)p->duration_ms * 1000000;
	for (unsigned int i = 0; i < r.nodes; i++)
		dprintf(r.go_w[i], "G %llu %llu\n", (unsigned long long)t0,
			(unsigned long long)end);

	/* The run: inject the faults at their times, collect the reports. */
	while (now_ns() < end + 50000000ull) {
		uint64_t now = now_ns();

		while (next < r.ninj && now >= t0 + r.inj[next].time_ns) {
			const struct nn_inj *f = &r.inj[next++];
			struct nn_child *c = &r.child[f->node];

			if (c->dead || r.out[f->node] || r.pend[f->node] || r.netem_until[f->node])
				continue;	/* not a member now: not injected (as the model) */
			if (f->via == NN_VIA_NETEM) {
				char *why = NULL;

				if (nn_netem(&r, f->node, true, f->kind, budget, &why)) {
					rt_log(RT_LOG_WARN, "nop: netem %s on node %u: %s",
					       sim_nop_fault_names[f->kind], f->node,
					       why ? why : "failed");
					free(why);
					continue;
				}
				now = now_ns();
				r.netem_until[f->node] = now + bound;
			}
			r.injected[f->via]++;
			r.pend[f->node] = now;
			r.via[f->node] = f->via;
			json_array_append_new(r.rows, json_pack("[s, f, i, s, s, f, s]",
					      nn_via_scenario[f->via], (double)(now - t0) / 1000.0,
					      (int)f->node, "injected",
					      sim_nop_fault_names[f->kind], 0.0, ""));
			if (f->via == NN_VIA_NETEM) {
				/* the qdisc does it */
			} else if (f->kind == SIM_NOP_F_CRASH) {
				kill(c->pid, SIGKILL);
				waitpid(c->pid, NULL, 0);
				c->pid = 0;
				c->dead = true;
			} else {
				dprintf(c->cmd_w, "F %u\n", f->kind);
			}
		}
		nn_drain(&r, 2, t0, bound);
		/* A netem fault ends with its first verdict, or at the bound (then it is missed). */
		for (unsigned int i = 0; i < r.nodes; i++) {
			char *why = NULL;

			if (!r.netem_until[i] || (!r.netem_done[i] && now_ns() < r.netem_until[i]))
				continue;
			if (nn_netem(&r, i, false, SIM_NOP_F_NONE, 0, &why)) {
				rt_log(RT_LOG_WARN, "nop: removing netem from node %u: %s", i,
				       why ? why : "failed");
				free(why);
			}
			r.netem_until[i] = 0;
			r.netem_done[i] = false;
		}
		{
			unsigned int pct = now > end ? 100 : now > t0 ?
					   (unsigned int)((now - t0) * 100 / (end - t0 + 1)) : 1;

			if (pct != r.pct)
				rt_sink_progress(sink, pct, "nodes in network namespaces");
			r.pct = pct;
		}
		if (lab_ctx_stopped(ctx)) {
			out->interrupted = true;
			break;
		}
	}
	nn_stop(&r);
	nn_drain(&r, 0, t0, bound);

	res = rt_result_new("nop", ctx->tier ? ctx->tier : "host", ctx->env);
	scens = json_array();
	if (!res || !scens) {
		ret = -ENOMEM;
		goto out;
	}
	/*
	 * One scenario per injector ("nop": rtlab's, "nop-netem": netem's), side by
	 * side; the summary holds the whole run (and netem's figures apart).
	 */
	for (int v = -1; !ret && v < NN_NVIA; v++) {
		uint64_t inj = 0, det = 0, dmax = 0, dsum = 0, over = 0;
		double t = (double)(end - t0);

		if (v == NN_VIA_NETEM && p->inject == NOP_INJECT_RTLAB)
			continue;
		if (v == NN_VIA_RTLAB && p->inject == NOP_INJECT_NETEM && !r.injected[v])
			continue;
		for (int w = 0; w < NN_NVIA; w++) {
			if (v >= 0 && w != v)
				continue;
			inj += r.injected[w];
			det += r.detected[w];
			dsum += r.det_sum[w];
			over += r.over[w];
			dmax = r.det_max[w] > dmax ? r.det_max[w] : dmax;
		}
		struct { const char *k; double v; } fig[] = {
			{ "faults_injected_count", (double)inj },
			{ "faults_detected_count", (double)det },
			{ "false_positives_count", (double)r.false_pos },
			{ "detections_over_bound_count", (double)over },
			{ "detection_max_us", (double)dmax / 1000.0 },
			{ "detection_avg_us", det ? (double)dsum / (double)det / 1000.0 : 0 },
			{ "detection_bound_us", (double)bound / 1000.0 },
			{ "timeout_us", (double)timeout / 1000.0 },
			{ "jitter_measured_us", (double)jitter / 1000.0 },
			{ "jitter_budget_us", (double)budget / 1000.0 },
			{ "utilisation_pct", 100.0 * (double)r.data_ns / t },
			{ "goodput_pct", 100.0 * (double)r.data_bytes * NN_BYTE_NS / t },
			{ "frames_count", (double)r.frames },
			{ "verdicts_count", (double)r.verdicts },
			{ "rejoins_count", (double)r.joins },
		};

		if (v < 0) {
			for (size_t i = 0; !ret && i < sizeof(fig) / sizeof(fig[0]); i++)
				ret = rt_result_set_summary(res, fig[i].k, fig[i].v);
			continue;
		}
		scen = json_pack("{s:s, s:s, s:b}", "name", nn_via_scenario[v], "summary",
				 v == NN_VIA_NETEM ? "the Node Order Protocol between node "
				 "processes in network namespaces, faults made by tc netem on "
				 "the nodes' veths" : "the Node Order Protocol between node "
				 "processes in network namespaces, faults injected by rtlab",
				 "interrupted", out->interrupted);
		if (!scen) {
			ret = -ENOMEM;
			break;
		}
		for (size_t i = 0; !ret && i < sizeof(fig) / sizeof(fig[0]); i++)
			if (json_object_set_new(scen, fig[i].k, json_real(fig[i].v)))
				ret = -ENOMEM;
		if (!ret && v == NN_VIA_NETEM)
			ret = rt_result_set_summary(res, "netem_faults_injected_count", (double)inj) ?:
			      rt_result_set_summary(res, "netem_faults_detected_count", (double)det) ?:
			      rt_result_set_summary(res, "netem_detection_max_us",
						    (double)dmax / 1000.0);
		if (!ret && json_array_append_new(scens, scen))
			ret = -ENOMEM;
		scen = NULL;
	}
	if (!ret)
		ret = lab_seed_record(res, ctx->seed) ?:
		      rt_result_set_param_str(res, "medium", "netns") ?:
		      rt_result_set_param_str(res, "protocol", "nop") ?:
		      rt_result_set_param_num(res, "nodes", r.nodes) ?:
		      rt_result_set_param_num(res, "duration_ms", p->duration_ms) ?:
		      rt_result_set_param_num(res, "bit_rate_mbps", 1) ?:
		      rt_result_set_param_num(res, "gap_us", (double)NN_GAP_NS / 1000.0) ?:
		      rt_result_set_param_str(res, "inject", p->inject == NOP_INJECT_BOTH ? "both" :
					      p->inject == NOP_INJECT_NETEM ? "netem" : "rtlab") ?:
		      rt_result_add_note(res, "REAL MEDIUM: node processes at SCHED_FIFO in network "
					 "namespaces of their own, joined by veths to a bridge in a "
					 "bus namespace; frames of our format at a nominal 1 Mbit/s. "
					 "The timeout is the longest frame + the gap + a jitter budget "
					 "of three times the worst scheduling delay measured before the "
					 "run plus 10 ms; faults injected by rtlab (SIGKILL for a crash, "
					 "orders to the node for the others)");
	if (!ret && p->inject != NOP_INJECT_RTLAB)
		ret = rt_result_add_note(res, "tc netem made the skip, corrupt and late faults of "
					 "scenario nop-netem from outside the node: loss 100%, corrupt "
					 "100% or a delay past the late threshold on its veth, from the "
					 "injection until the first verdict on it");
	if (!ret && r.twins_dropped)
		ret = rt_result_add_note(res, "some faults got no netem twin: it would not have "
					 "ended within the run (inject earlier, or run longer)");
	if (!ret && r.no_fifo)
		ret = rt_result_add_note(res, "some nodes could not get SCHED_FIFO: expect more "
					 "jitter");
	if (!ret && p->protocol != NOP_SEL_NOP)
		ret = rt_result_add_note(res, "TDMA is not run on the real medium: its clocks are "
					 "the model's (--medium sim)");
	if (!ret)
		ret = rt_result_set_scenarios(res, scens);
	extra = ret ? NULL : rt_result_extra(res);
	if (!ret && (!extra || json_object_set(extra, "faults", r.rows)))
		ret = -ENOMEM;
	if (!ret) {
		out->res = res;
		res = NULL;
	}
out:
	nn_stop(&r);
	if (rep[0] >= 0)
		close(rep[0]);
	if (rep[1] >= 0)
		close(rep[1]);
	if (ret && cause)
		rt_log(RT_LOG_ERR, "nop: %s", cause);
	free(cause);
	free(r.ip);
	free(r.tc);
	if (r.trace)
		fclose(r.trace);
	json_decref(r.rows);
	json_decref(scen);
	json_decref(scens);
	rt_result_free(res);
	return ret;
}
