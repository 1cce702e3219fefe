/* libgateplugin.so: a plugin cprog opens with dlopen() after it started (never linked). */
#include "spin.h"

__attribute__((noinline)) int plugin_work(int n) {
  spin_ns(10000);
  return n * 2;
}
