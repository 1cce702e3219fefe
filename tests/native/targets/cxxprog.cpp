// cxxprog: a C++ program (no Go) for gate's native tests: functions matched by demangled globs,
// and exceptions that unwind through a traced function.
//   cxxprog shapes N      shapes::Circle::area() const and shapes::Square::area() const, N each
//   cxxprog throw N       shapes::checked(int) N times; every odd call throws through it
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace shapes {

__attribute__((noinline)) void spin_us(int us) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < end) {
  }
}

struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
};
struct Circle : Shape {
  double r = 1;
  __attribute__((noinline)) double area() const override {
    spin_us(10);
    return 3.14159 * r * r;
  }
};
struct Square : Shape {
  double s = 2;
  __attribute__((noinline)) double area() const override {
    spin_us(10);
    return s * s;
  }
};

__attribute__((noinline)) int thrower(int i) {
  if (i % 2) throw std::runtime_error("odd");
  return i;
}

__attribute__((noinline)) int checked(int i) {
  spin_us(5);
  return thrower(i) + 1;
}

}  // namespace shapes

volatile double sink;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: cxxprog shapes|throw N\n");
    return 2;
  }
  const int n = std::atoi(argv[2]);
  if (!std::strcmp(argv[1], "shapes")) {
    shapes::Circle c;
    shapes::Square s;
    const shapes::Shape* all[] = {&c, &s};
    for (int i = 0; i < 2 * n; i++) sink = all[i % 2]->area();
  } else {
    int caught = 0;
    for (int i = 0; i < n; i++) {
      try {
        sink = shapes::checked(i);
      } catch (const std::exception&) {
        caught++;
      }
    }
    std::printf("caught %d\n", caught);
  }
  std::printf("done\n");
  return 0;
}
