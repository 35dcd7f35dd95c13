/*
 * harness.h: what the host-overhead harnesses share (bench_compare writes it
 * beside each harness's source): the clock, and the timing of calls through
 * the shim against the vendor's own function in alternating batches.
 */
#ifndef ISAAC_HARNESS_H
#define ISAAC_HARNESS_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BATCHES 100
#define PER 100

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* A call of the measured function: which is 0 for the vendor's own, 1 for
 * the shim's; nonzero is a failing status. */
typedef int (*harness_call)(int which, void *ctx);

/* time_calls times BATCHES batches of PER calls of each side, alternating
 * which side goes first; each batch's issue time is measured, then an
 * untimed synchronization. It prints the line bench_compare parses, with
 * n as the problem's size. */
static int time_calls(harness_call call, void *ctx, int n)
{
	double t[2][BATCHES], diff[BATCHES], total[2] = {0, 0};
	for (int batch = 0; batch < BATCHES; batch++) {
		for (int which = 0; which < 2; which++) {
			int w = (batch & 1) ? 1 - which : which;
			double t0 = now_ns();
			for (int i = 0; i < PER; i++)
				if (call(w, ctx))
					return 2;
			double t1 = now_ns();
			cudaDeviceSynchronize();
			t[w][batch] = (t1 - t0) / PER;
			total[w] += t1 - t0;
		}
		diff[batch] = t[1][batch] - t[0][batch];
	}
	qsort(t[0], BATCHES, sizeof(double), cmp);
	qsort(t[1], BATCHES, sizeof(double), cmp);
	qsort(diff, BATCHES, sizeof(double), cmp);
	printf("n=%d calls=%d vendor_ns=%.0f shim_ns=%.0f added_median_ns=%.0f added_mean_ns=%.0f\n", n,
		BATCHES * PER, t[0][BATCHES / 2], t[1][BATCHES / 2], diff[BATCHES / 2],
		(total[1] - total[0]) / (BATCHES * PER));
	return 0;
}

#endif
