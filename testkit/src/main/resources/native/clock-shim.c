/*
 * Preloaded into a redis-server (LD_PRELOAD) so that a test can step its wall clock, as an NTP
 * step would: CLOCK_REALTIME, gettimeofday and time are moved by the number of milliseconds held,
 * as a native-endian int64, in the file BATON_CLOCK_OFFSET_FILE, read through a shared mapping on
 * every call. The monotonic clocks are left alone, as NTP leaves them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile int64_t *offset_ms;
static int mapped;

static int64_t offset(void) {
  if (!mapped) {
    mapped = 1;
    const char *file = getenv("BATON_CLOCK_OFFSET_FILE");
    if (file) {
      int fd = open(file, O_RDONLY);
      if (fd >= 0) {
        void *p = mmap(NULL, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
        close(fd);
        if (p != MAP_FAILED) {
          offset_ms = p;
        }
      }
    }
  }
  return offset_ms ? *offset_ms : 0;
}

static void shift(struct timespec *ts) {
  int64_t ns = (int64_t) ts->tv_nsec + offset() * 1000000;
  int64_t sec = ns / 1000000000;
  ns %= 1000000000;
  if (ns < 0) {
    ns += 1000000000;
    sec -= 1;
  }
  ts->tv_sec += sec;
  ts->tv_nsec = ns;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
  static int (*real)(clockid_t, struct timespec *);
  if (!real) {
    real = dlsym(RTLD_NEXT, "clock_gettime");
  }
  int r = real(id, ts);
  if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) {
    shift(ts);
  }
  return r;
}

int gettimeofday(struct timeval *tv, void *tz) {
  struct timespec ts;
  int r = clock_gettime(CLOCK_REALTIME, &ts);
  if (r == 0 && tv) {
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
  }
  (void) tz;
  return r;
}

time_t time(time_t *t) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (t) {
    *t = ts.tv_sec;
  }
  return ts.tv_sec;
}
