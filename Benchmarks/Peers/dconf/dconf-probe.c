/*
 * dconf-probe: GNOME dconf, the peer of swift-preferences, measured through dconf's own
 * client library (libdconf, what GSettings' dconf backend uses).
 *
 *   dconf-probe read ROUNDS              cached read of one key, dconf_client_read, 100,000
 *                                        reads a round; prints "read-ns <median ns per read>"
 *   dconf-probe latency CHANGES WATCHERS [SAMPLES-FILE]
 *                                        write in this process (dconf_client_write_fast, as
 *                                        g_settings_set does) → "changed" signal in each of
 *                                        WATCHERS forked processes; waits for every watcher
 *                                        before the next change; writes one latency in
 *                                        microseconds a line to SAMPLES-FILE; prints
 *                                        "latency-us p50 p99 p999 max count"
 *
 * Needs a session bus with dconf-service on it (Benchmarks/Peers/dconf/run.sh starts a
 * private one). Built by that script with `cc $(pkg-config --cflags --libs dconf)`.
 */
#include <dconf.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DIRECTORY "/swift-preferences-benchmark/"
#define PROBE_KEY DIRECTORY "probe"
#define READ_KEY DIRECTORY "enabled"

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void die(const char *message) {
    fprintf(stderr, "dconf-probe: %s\n", message);
    exit(1);
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(const double *sorted, size_t count, double p) {
    size_t index = (size_t)((double)count * p);
    return sorted[index < count ? index : count - 1];
}

/* ---- read ---- */

static int run_read(int rounds) {
    DConfClient *client = dconf_client_new();
    GError *error = NULL;
    if (!dconf_client_write_sync(client, READ_KEY, g_variant_new_boolean(TRUE), NULL, NULL, &error))
        die(error->message);
    enum { reads = 100000 };
    double *per_read = calloc((size_t)rounds, sizeof(double));
    int sink = 0;
    for (int round = 0; round < rounds; round++) {
        int64_t start = now_ns();
        for (int i = 0; i < reads; i++) {
            GVariant *value = dconf_client_read(client, READ_KEY);
            if (value == NULL) die("the key written before reading is not there");
            sink += g_variant_get_boolean(value);
            g_variant_unref(value);
        }
        per_read[round] = (double)(now_ns() - start) / reads;
    }
    if (sink != rounds * reads) die("read back a wrong value");
    qsort(per_read, (size_t)rounds, sizeof(double), compare_doubles);
    printf("read-ns %.1f\n", percentile(per_read, (size_t)rounds, 0.5));
    g_object_unref(client);
    return 0;
}

/* ---- latency: the watcher side ---- */

static int report_fd = -1;

static void on_changed(DConfClient *client, const gchar *prefix, const gchar *const *changes,
                       const gchar *tag, gpointer user_data) {
    (void)tag;
    (void)user_data;
    int64_t received = now_ns();
    /* prefix + each of changes is a changed key (changes may hold just ""). */
    for (size_t i = 0; changes[i] != NULL; i++) {
        gchar *key = g_strconcat(prefix, changes[i], NULL);
        int relevant = strcmp(key, PROBE_KEY) == 0;
        g_free(key);
        if (!relevant) continue;
        GVariant *value = dconf_client_read(client, PROBE_KEY);
        if (value == NULL) continue;
        int64_t sent = g_variant_get_int64(value);
        g_variant_unref(value);
        char line[64];
        int length = snprintf(line, sizeof line, "%lld\n", (long long)(received - sent));
        if (write(report_fd, line, (size_t)length) != length) exit(1);
    }
}

static void run_watcher(int fd) {
    report_fd = fd;
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    DConfClient *client = dconf_client_new();
    g_signal_connect(client, "changed", G_CALLBACK(on_changed), NULL);
    dconf_client_watch_sync(client, DIRECTORY);
    if (write(fd, "ready\n", 6) != 6) exit(1);
    g_main_loop_run(loop); /* until the parent kills us */
    exit(0);
}

/* ---- latency: the writer side ---- */

typedef struct {
    FILE *in;
    pid_t pid;
} Watcher;

static int run_latency(int changes, int watcher_count, const char *samples_path) {
    Watcher *watchers = calloc((size_t)watcher_count, sizeof(Watcher));
    for (int w = 0; w < watcher_count; w++) {
        int fds[2];
        if (pipe(fds) != 0) die("pipe");
        pid_t pid = fork();
        if (pid < 0) die("fork");
        if (pid == 0) {
            close(fds[0]);
            run_watcher(fds[1]);
        }
        close(fds[1]);
        watchers[w].in = fdopen(fds[0], "r");
        watchers[w].pid = pid;
    }
    char line[128];
    for (int w = 0; w < watcher_count; w++)
        if (!fgets(line, sizeof line, watchers[w].in) || strcmp(line, "ready\n") != 0) die("a watcher did not start");

    DConfClient *client = dconf_client_new();
    size_t total = (size_t)changes * (size_t)watcher_count;
    double *samples = calloc(total, sizeof(double));
    size_t count = 0;
    for (int change = 0; change < changes; change++) {
        GError *error = NULL;
        if (!dconf_client_write_fast(client, PROBE_KEY, g_variant_new_int64(now_ns()), &error))
            die(error->message);
        for (int w = 0; w < watcher_count; w++) {
            if (!fgets(line, sizeof line, watchers[w].in)) die("a watcher stopped");
            samples[count++] = (double)strtoll(line, NULL, 10) / 1000.0;
        }
    }
    for (int w = 0; w < watcher_count; w++) {
        kill(watchers[w].pid, SIGTERM);
        waitpid(watchers[w].pid, NULL, 0);
        fclose(watchers[w].in);
    }
    if (samples_path != NULL) {
        FILE *out = fopen(samples_path, "w");
        if (out == NULL) die("cannot write the samples file");
        for (size_t i = 0; i < count; i++) fprintf(out, "%.3f\n", samples[i]);
        fclose(out);
    }
    qsort(samples, count, sizeof(double), compare_doubles);
    printf("latency-us %.1f %.1f %.1f %.1f %zu\n", percentile(samples, count, 0.5), percentile(samples, count, 0.99),
           percentile(samples, count, 0.999), samples[count - 1], count);
    dconf_client_sync(client);
    g_object_unref(client);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "read") == 0) return run_read(atoi(argv[2]));
    if (argc >= 4 && strcmp(argv[1], "latency") == 0)
        return run_latency(atoi(argv[2]), atoi(argv[3]), argc >= 5 ? argv[4] : NULL);
    fprintf(stderr, "usage: dconf-probe read ROUNDS | latency CHANGES WATCHERS [SAMPLES-FILE]\n");
    return 2;
}
