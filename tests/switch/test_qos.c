// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of rocx-switch's lossless-fabric arithmetic on a virtual
 * clock: pause times, RED marking probabilities, the token bucket and
 * ETS shares.  Every expected number is worked out here by hand from the
 * formula (tools/rocx-switch/qos.h, Documentation/rocx-switch.rst), not
 * taken from the code's output.
 *
 *   test_qos     prints "ok NAME" / "FAIL NAME ..." and a summary line
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "switch.h"

static unsigned int passed, failed;

static void check(const char *name, bool ok, const char *fmt, double a,
		  double b)
{
	if (ok) {
		passed++;
		printf("ok   %s\n", name);
		return;
	}
	failed++;
	printf("FAIL %s ", name);
	printf(fmt, a, b);
	printf("\n");
}

static void check_eq(const char *name, double got, double want)
{
	check(name, got == want, "got %.17g want %.17g", got, want);
}

static void check_near(const char *name, double got, double want,
		       double eps)
{
	check(name, fabs(got - want) <= eps, "got %.17g want %.17g", got,
	      want);
}

#define CHECK_EQ(name, got, want) check_eq(name, (double)(got), (double)(want))
#define CHECK_NEAR(name, got, want, eps) \
	check_near(name, (double)(got), (double)(want), eps)

/*
 * A quantum is 512 bit times: quanta q at s Mb/s last q * 512 / s us.
 *   0xffff at 100 Mb/s:  65535 * 512 = 33553920 bits -> 335539.2 us
 *   0xffff at 100 Gb/s:  335.5392 us -> 335539.2 ns, rounded up 335540
 *   0xffff at 25 Gb/s:   1342.1568 us -> 1342157 ns (up)
 *   1 at 10 Mb/s:        51.2 us
 *   0: no pause
 */
static void t_pause_time(void)
{
	CHECK_EQ("pause: 0xffff quanta at 100 Mb/s is 335.5392 ms",
		 pfc_pause_ns(0xffff, 100), 335539200);
	CHECK_EQ("pause: 0xffff quanta at 100 Gb/s is 335.54 us",
		 pfc_pause_ns(0xffff, 100000), 335540);
	CHECK_EQ("pause: 0xffff quanta at 25 Gb/s is 1.342157 ms",
		 pfc_pause_ns(0xffff, 25000), 1342157);
	CHECK_EQ("pause: 1 quantum at 10 Mb/s is 51.2 us",
		 pfc_pause_ns(1, 10), 51200);
	CHECK_EQ("pause: quanta 0 pauses nothing", pfc_pause_ns(0, 100), 0);
}

/*
 * RED with kmin 10000, kmax 50000, pmax 0.2: p = 0.2 (q - 10000) / 40000
 * between the two, 0 below kmin, 1 from kmax on.
 *   q 9999: 0   q 10000: 0   q 30000: 0.1   q 40000: 0.15
 *   q 49999: 0.2 * 39999 / 40000 = 0.199995   q 50000: 1
 * kmin = kmax = 20000 is a step: 0 below, 1 from there.
 */
static void t_red(void)
{
	CHECK_EQ("red: below kmin, no mark", red_prob(9999, 10000, 50000, 0.2),
		 0);
	CHECK_EQ("red: at kmin, p 0", red_prob(10000, 10000, 50000, 0.2), 0);
	CHECK_NEAR("red: half way, p 0.1", red_prob(30000, 10000, 50000, 0.2),
		   0.1, 1e-12);
	CHECK_NEAR("red: three quarters, p 0.15",
		   red_prob(40000, 10000, 50000, 0.2), 0.15, 1e-12);
	CHECK_NEAR("red: just below kmax, p 0.199995",
		   red_prob(49999, 10000, 50000, 0.2), 0.199995, 1e-12);
	CHECK_EQ("red: at kmax, every frame", red_prob(50000, 10000, 50000, 0.2),
		 1);
	CHECK_EQ("red: above kmax, every frame",
		 red_prob(1 << 20, 10000, 50000, 0.2), 1);
	CHECK_EQ("red: step below K", red_prob(19999, 20000, 20000, 0.5), 0);
	CHECK_EQ("red: step at K", red_prob(20000, 20000, 20000, 0.5), 1);
}

/*
 * 8 Mb/s is 1e6 bytes/s, burst 3000 bytes:
 *   full at start: two 1500-byte frames, then none (0 tokens left);
 *   a third waits 1500 bytes / 1e6 B/s = 1.5 ms;
 *   1 ms later 1000 tokens; 10 s later still only the burst, 3000.
 * Sending 1000-byte frames as soon as allowed from t = 0 to t = 1 s:
 * the burst (3 frames) plus 1e6 bytes earned (1000 frames) = 1003.
 */
static void t_tbf(void)
{
	struct sw_tbf t;
	uint64_t now = 1000000000, end, at;
	unsigned int n = 0;
	double lost;

	tbf_set(&t, 8000000, 3000, now);
	CHECK_EQ("tbf: a full bucket sends a frame", tbf_may_send(&t, 1500), 1);
	tbf_take(&t, 1500);
	tbf_take(&t, 1500);
	CHECK_EQ("tbf: empty after the burst", tbf_may_send(&t, 1500), 0);
	CHECK_EQ("tbf: 1500 bytes at 1e6 B/s wait 1.5 ms",
		 tbf_wait_ns(&t, 1500), 1500000);
	CHECK_NEAR("tbf: an empty bucket 1 ms on keeps all it earns",
		   tbf_refill(&t, now + 1000000), 0, 1e-6);
	CHECK_NEAR("tbf: 1 ms earns 1000 bytes", t.tokens, 1000, 1e-6);
	CHECK_NEAR("tbf: 10 s on, 1e7 bytes earned, 2000 kept, 9998000 not",
		   tbf_refill(&t, now + 10001000000ULL), 9998000, 1e-3);
	CHECK_NEAR("tbf: never more than the burst", t.tokens, 3000, 1e-6);

	tbf_set(&t, 8000000, 3000, now);
	end = now + 1000000000;
	while (now <= end) {
		uint64_t w;

		tbf_refill(&t, now);
		w = tbf_wait_ns(&t, 1000);
		if (w) {
			now += w;
			continue;
		}
		tbf_take(&t, 1000);
		n++;
	}
	CHECK_EQ("tbf: 1 s at 8 Mb/s with a 3000-byte burst sends 1003 kB",
		 n, 1003);
	/*
	 * Looked at every 4 ms with a frame always waiting, the bucket keeps
	 * no more than its burst between looks: 3 frames of 1000 bytes a
	 * look, 251 looks in the second, 753 frames.  A switch the host does
	 * not run loses that line time on purpose (rocx-switch.rst), and
	 * says so: each of the 250 looks after the first finds 4000 bytes
	 * earned and keeps 3000, so 250000 bytes (the 250 frames that 1003
	 * less 753 leaves) are the refills' return.
	 */
	tbf_set(&t, 8000000, 3000, now);
	n = 0;
	lost = 0;
	for (at = now; at <= now + 1000000000ULL; at += 4000000) {
		lost += tbf_refill(&t, at);
		while (tbf_may_send(&t, 1000)) {
			tbf_take(&t, 1000);
			n++;
		}
	}
	CHECK_EQ("tbf: looked at every 4 ms, 1 s sends 753 frames", n, 753);
	CHECK_NEAR("tbf: ... and 250000 bytes earned are not kept", lost,
		   250000, 1e-3);
	CHECK_EQ("tbf: no rate never waits", (tbf_set(&t, 0, 0, now),
		 tbf_wait_ns(&t, 9000)), 0);
}

/*
 * ETS by DRR, quantum w * SW_ETS_QUANTUM (256) bytes a turn.  Classes
 * 1 and 2 at 70 and 30 with 1000-byte frames always waiting: bytes in
 * the ratio 70:30, so of 10000 frames 7000 from class 1, give or take
 * what one turn's quantum holds (17920 bytes: 18 frames).  A strict
 * class that has a frame always goes first; a class that cannot send
 * (paused) leaves the line to the others.  Three classes of 50, 30 and
 * 20 with frames of 1500, 500 and 9000 bytes share bytes 50:30:20: of
 * 10 MB sent, 5, 3 and 2 MB, within a quantum and a frame each.
 */
static void t_ets(void)
{
	uint8_t tsa[SW_NUM_PRIO] = { 0 }, bw[SW_NUM_PRIO];
	bool can[SW_NUM_PRIO] = { false };
	uint32_t len[SW_NUM_PRIO] = { 0 };
	uint64_t bytes[SW_NUM_PRIO];
	unsigned int cnt[SW_NUM_PRIO] = { 0 }, i;
	struct sw_drr d;
	uint64_t total;

	memset(bw, 1, sizeof(bw));
	memset(&d, 0, sizeof(d));
	tsa[1] = tsa[2] = SW_TSA_ETS;
	bw[1] = 70;
	bw[2] = 30;
	can[1] = can[2] = true;
	len[1] = len[2] = 1000;
	for (i = 0; i < 10000; i++)
		cnt[drr_pick(&d, tsa, bw, can, len)]++;
	CHECK_NEAR("ets: 70/30 of 10000 frames: 7000 from class 1", cnt[1],
		   7000, 18);
	CHECK_EQ("ets: the rest from class 2", cnt[1] + cnt[2], 10000);

	can[5] = true;
	len[5] = 64;
	CHECK_EQ("ets: a strict class with a frame goes first",
		 drr_pick(&d, tsa, bw, can, len), 5);
	can[5] = false;
	can[1] = false;
	for (i = 0; i < 100; i++)
		if (drr_pick(&d, tsa, bw, can, len) != 2)
			break;
	CHECK_EQ("ets: class 1 paused, class 2 takes the line", i, 100);
	can[2] = false;
	CHECK_EQ("ets: nothing to send", drr_pick(&d, tsa, bw, can, len), -1);

	memset(&d, 0, sizeof(d));
	memset(tsa, 0, sizeof(tsa));
	memset(can, 0, sizeof(can));
	memset(bytes, 0, sizeof(bytes));
	tsa[0] = tsa[3] = tsa[6] = SW_TSA_ETS;
	bw[0] = 50;
	bw[3] = 30;
	bw[6] = 20;
	can[0] = can[3] = can[6] = true;
	len[0] = 1500;
	len[3] = 500;
	len[6] = 9000;
	for (total = 0; total < 10000000;) {
		int c = drr_pick(&d, tsa, bw, can, len);

		bytes[c] += len[c];
		total += len[c];
	}
	CHECK_NEAR("ets: 50% of the bytes, 1500-byte frames", bytes[0],
		   total * 0.5, 50 * 256 + 9000);
	CHECK_NEAR("ets: 30% of the bytes, 500-byte frames", bytes[3],
		   total * 0.3, 50 * 256 + 9000);
	CHECK_NEAR("ets: 20% of the bytes, 9000-byte frames", bytes[6],
		   total * 0.2, 50 * 256 + 9000);
}

/*
 * Timed mode (timed.c).  Serialisation is 8 * (bytes + 20) / rate,
 * rounded up to a whole ns:
 *   1000 bytes at 1 Gb/s:    8160 bits -> 8160 ns
 *   1000 bytes at 25 Gb/s:   326.4 ns -> 327
 *   64 bytes at 100 Gb/s:    6.72 ns -> 7
 *   9216 bytes at 12.5 Mb/s: 73888 bits -> 5911040 ns
 * The horizon is the least of (promise received + L) over joined ports,
 * of (--epoch + L) over ports not joined, ignoring ports that left; with
 * every port gone it stays at the clock.
 */
static void t_timed(void)
{
	static struct sw sw;
	struct sw_port *p = &sw.port[0];

	p->qos.tbf.rate_bps = 1000000000;
	CHECK_EQ("timed: 1000 bytes at 1 Gb/s", timed_ser_ns(p, 1000), 8160);
	p->qos.tbf.rate_bps = 25000000000ULL;
	CHECK_EQ("timed: 1000 bytes at 25 Gb/s, rounded up",
		 timed_ser_ns(p, 1000), 327);
	p->qos.tbf.rate_bps = 100000000000ULL;
	CHECK_EQ("timed: 64 bytes at 100 Gb/s, rounded up",
		 timed_ser_ns(p, 64), 7);
	p->qos.tbf.rate_bps = 12500000;
	CHECK_EQ("timed: 9216 bytes at 12.5 Mb/s", timed_ser_ns(p, 9216),
		 5911040);

	sw.nports = 3;
	sw.epoch_ns = 5000;
	sw.now_ns = 4000;
	sw.port[0].ch.latency_ns = 1000;
	sw.port[1].ch.latency_ns = 300;
	sw.port[2].ch.latency_ns = 2000;
	CHECK_EQ("timed: nobody joined: --epoch + the least L",
		 timed_horizon(&sw), 5300);
	sw.port[1].ch.state = CH_UP;
	sw.port[1].ch.prom_rx = 9000;
	CHECK_EQ("timed: an unjoined port still holds at --epoch + L",
		 timed_horizon(&sw), 6000);
	sw.port[0].ch.state = CH_UP;
	sw.port[0].ch.prom_rx = 7000;
	sw.port[2].ch.left = true;
	CHECK_EQ("timed: joined ports' promise + L; a left port not at all",
		 timed_horizon(&sw), 8000);
	sw.port[0].ch.state = CH_NONE;
	sw.port[0].ch.left = true;
	sw.port[1].ch.state = CH_NONE;
	sw.port[1].ch.left = true;
	CHECK_EQ("timed: every port left: the clock stays",
		 timed_horizon(&sw), 4000);
}

int main(void)
{
	t_pause_time();
	t_timed();
	t_red();
	t_tbf();
	t_ets();
	printf("qos: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
