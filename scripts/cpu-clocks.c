// cpu-clocks: what each of two CPU clocks charges for a context switch.
//
//   cpu-clocks [ROUND_TRIPS]     (default 200000)
//
// Two processes pass a byte back and forth over two pipes; each round trip
// is two context switches. The program prints the CPU time getrusage
// charged both processes (user + system, the clock behind katbench's
// params.cpu_us_per_op) and the voluntary context switches; run it under
// `perf stat -e task-clock,context-switches` to set the kernel's task clock
// beside it. Pinned to one CPU (taskset -c 0) a switch goes straight to the
// other process; on two CPUs each one leaves a CPU idle and wakes the
// other. scripts/readme-runs.sh cpu-clocks runs both.
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static double usecs(struct timeval t) { return t.tv_sec * 1e6 + t.tv_usec; }

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 200000;
	if (n <= 0) {
		fprintf(stderr, "cpu-clocks: round trips %s: want a positive number\n", argv[1]);
		return 2;
	}
	int to[2], from[2];
	char c = 0;
	if (pipe(to) != 0 || pipe(from) != 0) {
		perror("cpu-clocks: pipe");
		return 1;
	}
	pid_t child = fork();
	if (child < 0) {
		perror("cpu-clocks: fork");
		return 1;
	}
	if (child == 0) {
		for (long i = 0; i < n; i++)
			if (read(to[0], &c, 1) != 1 || write(from[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (long i = 0; i < n; i++)
		if (write(to[1], &c, 1) != 1 || read(from[0], &c, 1) != 1) {
			perror("cpu-clocks: ping-pong");
			return 1;
		}
	int status;
	struct rusage kid, self;
	if (wait4(child, &status, 0, &kid) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "cpu-clocks: the other process failed\n");
		return 1;
	}
	getrusage(RUSAGE_SELF, &self);
	double cpu = usecs(self.ru_utime) + usecs(self.ru_stime) + usecs(kid.ru_utime) + usecs(kid.ru_stime);
	printf("getrusage ms %.1f, voluntary switches %ld, round trips %ld\n", cpu / 1e3, self.ru_nvcsw + kid.ru_nvcsw, n);
	return 0;
}
