/* Built with -fcf-protection: every function opens with endbr64 (single-stepped by a uprobe), as
 * in distributions that build with CET. gate's entry moves to the push after it (bench_native). */
extern int (*volatile leaf_ptr)(int);

__attribute__((noinline)) int tiny_cet(int x) {
  int y = leaf_ptr(x);
  int z = leaf_ptr(y);
  return x + y + z;
}

/* Entry-shift cases for gate's plan tests (hand-written, so the bytes are known): both open with a
 * single-stepped `xor` before an emulated `push`; in loop_top a branch comes back to the push, so
 * moving the entry there would count one call as three, and gate must keep the first instruction. */
__asm__(".text\n"
        ".globl loop_top\n.type loop_top, @function\nloop_top:\n"
        "  xor %eax, %eax\n"
        "1: push %rbx\n  pop %rbx\n  inc %eax\n  cmp $3, %eax\n  jl 1b\n  ret\n"
        ".size loop_top, .-loop_top\n"
        ".globl straight_top\n.type straight_top, @function\nstraight_top:\n"
        "  xor %eax, %eax\n  push %rbx\n  pop %rbx\n  inc %eax\n  ret\n"
        ".size straight_top, .-straight_top\n");
