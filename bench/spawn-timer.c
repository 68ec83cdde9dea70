/*
 * spawn-timer: time whole processes, stdin fed from a file.
 *
 *   spawn-timer -n RUNS [-w WARMUP] [-i STDIN_FILE] [-x CODE]... -- PROGRAM ARGS...
 *
 * Runs PROGRAM WARMUP times untimed, then RUNS times timed. Each run is fork + execvp
 * with stdin from STDIN_FILE (rewound each run; /dev/null without -i), stdout and
 * stderr to /dev/null and the environment inherited. Wall time is CLOCK_MONOTONIC
 * from just before fork() to just after wait4() returns; ru_maxrss comes from wait4.
 * Exit 0 is success; each -x CODE accepts one more exit status. A signal, an exec
 * failure or any other status is a failed run (reported on stderr). Statistics cover
 * the successful measured runs. Prints one JSON line on stdout:
 *
 *   {"program": "...", "runs": N, "warmup": W, "median_us": ..., "p90_us": ...,
 *    "min_us": ..., "mean_us": ..., "max_rss_kib": ..., "failures": F}
 *
 * Exit status: 0 if every run succeeded, 1 if any failed, 2 on a usage or system error.
 * Hyperfine 1.15 (Debian 12) has no --input, hence this tool.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_EXPECTED 16
#define MAX_REPORTED 10 /* failure messages printed; the count is always exact */

struct run_result {
    int64_t wall_ns;
    long maxrss_kib;
    int ok;
};

static void usage(FILE *out) {
    fprintf(out,
            "usage: spawn-timer -n RUNS [-w WARMUP] [-i STDIN_FILE] [-x CODE]... -- PROGRAM [ARGS...]\n"
            "  -n RUNS        timed runs (>= 1)\n"
            "  -w WARMUP      untimed runs first (default 0)\n"
            "  -i STDIN_FILE  file fed to stdin of every run (default /dev/null)\n"
            "  -x CODE        also accept exit status CODE (0 is always accepted; repeatable)\n"
            "Prints one JSON line: program, runs, warmup, median_us, p90_us, min_us, mean_us,\n"
            "max_rss_kib, failures. Exit 0 if all runs succeeded, 1 if any failed, 2 on error.\n");
}

static int parse_count(const char *s, long min, long max, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max) return -1;
    *out = v;
    return 0;
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20) fprintf(out, "\\u%04x", *p);
            else fputc(*p, out);
        }
    }
    fputc('"', out);
}

/* One run. Returns 0 if it ran (result filled in), -1 on a system error in this process. */
static int run_once(char **argv, int stdin_fd, int null_fd, const int *expected, int n_expected,
                    long index, int *reported, struct run_result *r) {
    /* The child reports an exec failure through a close-on-exec pipe. */
    int errpipe[2];
    if (pipe2(errpipe, O_CLOEXEC) != 0) {
        perror("spawn-timer: pipe2");
        return -1;
    }
    if (lseek(stdin_fd, 0, SEEK_SET) == (off_t)-1 && errno != ESPIPE) {
        perror("spawn-timer: lseek stdin file");
        return -1;
    }

    struct rusage ru;
    int status = 0;
    int64_t t0 = now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        perror("spawn-timer: fork");
        close(errpipe[0]);
        close(errpipe[1]);
        return -1;
    }
    if (pid == 0) {
        close(errpipe[0]);
        if (dup2(stdin_fd, STDIN_FILENO) < 0 || dup2(null_fd, STDOUT_FILENO) < 0 ||
            dup2(null_fd, STDERR_FILENO) < 0) {
            int e = errno;
            ssize_t ignored = write(errpipe[1], &e, sizeof e);
            (void)ignored;
            _exit(127);
        }
        execvp(argv[0], argv);
        int e = errno;
        ssize_t ignored = write(errpipe[1], &e, sizeof e);
        (void)ignored;
        _exit(127);
    }
    close(errpipe[1]);
    pid_t w;
    do {
        w = wait4(pid, &status, 0, &ru);
    } while (w < 0 && errno == EINTR);
    int64_t t1 = now_ns();
    if (w < 0) {
        perror("spawn-timer: wait4");
        close(errpipe[0]);
        return -1;
    }

    int child_errno = 0;
    ssize_t got;
    do {
        got = read(errpipe[0], &child_errno, sizeof child_errno);
    } while (got < 0 && errno == EINTR);
    close(errpipe[0]);

    r->wall_ns = t1 - t0;
    r->maxrss_kib = ru.ru_maxrss; /* Linux reports kilobytes (KiB) */
    r->ok = 0;

    char why[160];
    if (got == (ssize_t)sizeof child_errno) {
        snprintf(why, sizeof why, "cannot run %s: %s", argv[0], strerror(child_errno));
    } else if (WIFEXITED(status)) {
        int code = WEXITSTATUS(status);
        r->ok = (code == 0);
        for (int i = 0; i < n_expected && !r->ok; i++) r->ok = (code == expected[i]);
        snprintf(why, sizeof why, "exit status %d", code);
    } else if (WIFSIGNALED(status)) {
        snprintf(why, sizeof why, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    } else {
        snprintf(why, sizeof why, "unexpected wait status 0x%x", status);
    }
    if (!r->ok) {
        if (*reported < MAX_REPORTED)
            fprintf(stderr, "spawn-timer: %s %ld failed: %s\n", index < 0 ? "warmup run" : "run",
                    index < 0 ? -index : index, why);
        else if (*reported == MAX_REPORTED)
            fprintf(stderr, "spawn-timer: further failures not shown\n");
        (*reported)++;
    }
    return 0;
}

int main(int argc, char **argv) {
    long runs = -1, warmup = 0;
    const char *stdin_path = NULL;
    int expected[MAX_EXPECTED];
    int n_expected = 0;

    int opt;
    while ((opt = getopt(argc, argv, "+n:w:i:x:h")) != -1) {
        long v;
        switch (opt) {
        case 'n':
            if (parse_count(optarg, 1, 10000000, &runs) != 0) {
                fprintf(stderr, "spawn-timer: -n wants a count >= 1, got '%s'\n", optarg);
                return 2;
            }
            break;
        case 'w':
            if (parse_count(optarg, 0, 10000000, &warmup) != 0) {
                fprintf(stderr, "spawn-timer: -w wants a count >= 0, got '%s'\n", optarg);
                return 2;
            }
            break;
        case 'i':
            stdin_path = optarg;
            break;
        case 'x':
            if (parse_count(optarg, 0, 255, &v) != 0 || n_expected == MAX_EXPECTED) {
                fprintf(stderr, "spawn-timer: -x wants an exit status 0..255 (at most %d), got '%s'\n",
                        MAX_EXPECTED, optarg);
                return 2;
            }
            expected[n_expected++] = (int)v;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (runs < 0 || optind >= argc) {
        usage(stderr);
        return 2;
    }
    char **child_argv = argv + optind;

    const char *in = stdin_path ? stdin_path : "/dev/null";
    int stdin_fd = open(in, O_RDONLY | O_CLOEXEC);
    if (stdin_fd < 0) {
        fprintf(stderr, "spawn-timer: cannot open %s: %s\n", in, strerror(errno));
        return 2;
    }
    int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd < 0) {
        perror("spawn-timer: open /dev/null");
        return 2;
    }

    struct run_result *results = calloc((size_t)runs, sizeof *results);
    int64_t *times = calloc((size_t)runs, sizeof *times);
    if (!results || !times) {
        fputs("spawn-timer: out of memory\n", stderr);
        return 2;
    }

    int reported = 0;
    struct run_result scratch;
    for (long i = 1; i <= warmup; i++) {
        if (run_once(child_argv, stdin_fd, null_fd, expected, n_expected, -i, &reported, &scratch) != 0)
            return 2;
    }
    int warmup_failures = reported;
    reported = 0;
    for (long i = 0; i < runs; i++) {
        if (run_once(child_argv, stdin_fd, null_fd, expected, n_expected, i + 1, &reported, &results[i]) != 0)
            return 2;
    }

    long failures = 0, n_ok = 0, max_rss = 0;
    double sum_ns = 0;
    for (long i = 0; i < runs; i++) {
        if (results[i].maxrss_kib > max_rss) max_rss = results[i].maxrss_kib;
        if (!results[i].ok) {
            failures++;
            continue;
        }
        times[n_ok++] = results[i].wall_ns;
        sum_ns += (double)results[i].wall_ns;
    }

    printf("{\"program\": ");
    json_string(stdout, child_argv[0]);
    printf(", \"runs\": %ld, \"warmup\": %ld", runs, warmup);
    if (n_ok > 0) {
        qsort(times, (size_t)n_ok, sizeof *times, cmp_i64);
        double median = (n_ok % 2) ? (double)times[n_ok / 2]
                                   : ((double)times[n_ok / 2 - 1] + (double)times[n_ok / 2]) / 2.0;
        /* p90 by nearest rank: the smallest time at or above 90% of the runs. */
        long rank = (n_ok * 9 + 9) / 10; /* ceil(0.9 * n) */
        printf(", \"median_us\": %.1f, \"p90_us\": %.1f, \"min_us\": %.1f, \"mean_us\": %.1f",
               median / 1e3, (double)times[rank - 1] / 1e3, (double)times[0] / 1e3,
               sum_ns / (double)n_ok / 1e3);
    } else {
        printf(", \"median_us\": null, \"p90_us\": null, \"min_us\": null, \"mean_us\": null");
    }
    printf(", \"max_rss_kib\": %ld, \"failures\": %ld}\n", max_rss, failures);
    fflush(stdout);

    if (warmup_failures > 0)
        fprintf(stderr, "spawn-timer: %d warmup run(s) failed\n", warmup_failures);
    free(results);
    free(times);
    return (failures > 0 || warmup_failures > 0) ? 1 : 0;
}
