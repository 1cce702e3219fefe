/* libgatework.so: a shared library cprog links against (found through its RUNPATH). */
#include "spin.h"

__attribute__((noinline)) int lib_work(int n) {
  spin_ns(10000);
  return n + 1;
}
