/* Built with -fcf-protection: every function opens with endbr64 (single-stepped by a uprobe), as
 * in distributions that build with CET. gate's entry moves to the push after it (bench_native). */
extern int (*volatile leaf_ptr)(int);

__attribute__((noinline)) int tiny_cet(int x) {
  int y = leaf_ptr(x);
  int z = leaf_ptr(y);
  return x + y + z;
}
