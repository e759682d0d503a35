/* Plain Needleman-Wunsch (Weber 3.2.2, eq. 3.2), match 2, mismatch -1, gap -1,
 * as the C baseline for the Go benchmarks.
 *   nw full  A B   full int32 matrix + traceback (Weber's NW, Table 3.1 memory)
 *   nw score A B   score only, two rows (the fastest plain NW)
 * A and B are little-endian int32 files. Prints score, cells, seconds, ns/cell. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>

static int32_t *readseq(const char *path, long *n) {
	FILE *f = fopen(path, "rb");
	if (!f) { perror(path); exit(1); }
	fseek(f, 0, SEEK_END); long bytes = ftell(f); fseek(f, 0, SEEK_SET);
	*n = bytes / 4;
	int32_t *s = malloc(bytes + 4);
	if (fread(s, 4, *n, f) != (size_t)*n) { perror(path); exit(1); }
	fclose(f);
	return s;
}

static double now(void) {
	struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

#define MAX3(a, b, c) ((a) > (b) ? ((a) > (c) ? (a) : (c)) : ((b) > (c) ? (b) : (c)))

int main(int argc, char **argv) {
	if (argc != 4) { fprintf(stderr, "usage: nw full|score A B\n"); return 2; }
	long n, m;
	int32_t *a = readseq(argv[2], &n), *b = readseq(argv[3], &m);
	int full = argv[1][0] == 'f';
	double t0 = now();
	long score;
	if (full) {
		long w = m + 1;
		int32_t *D = malloc(sizeof(int32_t) * (n + 1) * w);
		if (!D) { fprintf(stderr, "out of memory\n"); return 1; }
		for (long j = 0; j <= m; j++) D[j] = -j;
		for (long i = 1; i <= n; i++) {
			int32_t *r = D + i * w, *p = D + (i - 1) * w;
			r[0] = -i;
			for (long j = 1; j <= m; j++) {
				int32_t d = p[j - 1] + (a[i - 1] == b[j - 1] ? 2 : -1);
				r[j] = MAX3(d, p[j] - 1, r[j - 1] - 1);
			}
		}
		score = D[n * w + m];
		/* traceback */
		long i = n, j = m, len = 0;
		while (i > 0 || j > 0) {
			int32_t c = D[i * w + j];
			if (i > 0 && j > 0 && D[(i - 1) * w + j - 1] + (a[i - 1] == b[j - 1] ? 2 : -1) == c) { i--; j--; }
			else if (i > 0 && D[(i - 1) * w + j] - 1 == c) i--;
			else j--;
			len++;
		}
		free(D);
		if (len < 0) return 1;
	} else {
		int32_t *row = malloc(sizeof(int32_t) * (m + 1));
		for (long j = 0; j <= m; j++) row[j] = -j;
		for (long i = 1; i <= n; i++) {
			int32_t diag = row[0];
			row[0] = -i;
			int32_t ai = a[i - 1];
			for (long j = 1; j <= m; j++) {
				int32_t d = diag + (ai == b[j - 1] ? 2 : -1);
				diag = row[j];
				row[j] = MAX3(d, row[j] - 1, row[j - 1] - 1);
			}
		}
		score = row[m];
		free(row);
	}
	double dt = now() - t0;
	double cells = (double)n * m;
	printf("%s n=%ld m=%ld score=%ld seconds=%.4f ns/cell=%.4f\n", full ? "full" : "score", n, m, score, dt, dt * 1e9 / cells);
	return 0;
}
