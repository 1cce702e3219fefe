// Tests of NamePattern: Go symbol names with every special character, globs, generics, escapes.
#include "common/name_pattern.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "common/error.hpp"

namespace gate {
namespace {

bool m(std::string_view pattern, std::string_view name) { return NamePattern::parse(pattern).matches(name); }

TEST(NamePattern, ExactNamesAreLiteral) {
  EXPECT_FALSE(NamePattern::parse("main.spinFor").is_glob());
  EXPECT_TRUE(m("main.spinFor", "main.spinFor"));
  EXPECT_FALSE(m("main.spinFor", "main.spinFor2"));
  EXPECT_FALSE(m("main.spinFor", "main.spinfor"));
  // '.', '/', '[', ']' are literal; a package path with dots, slashes and a version suffix.
  EXPECT_FALSE(NamePattern::parse("example.com/x/v2.F").is_glob());
  EXPECT_TRUE(m("example.com/x/v2.F", "example.com/x/v2.F"));
  EXPECT_FALSE(m("example.com/x/v2.F", "exampleXcom/x/v2.F"));
  EXPECT_FALSE(NamePattern::parse("pkg.Map[go.shape.int]").is_glob());
  EXPECT_TRUE(m("pkg.Map[go.shape.int]", "pkg.Map[go.shape.int]"));
  EXPECT_FALSE(m("pkg.Map[go.shape.int]", "pkg.Map[go.shape.int_0]"));
}

TEST(NamePattern, PointerReceiverStarIsLiteral) {
  const auto p = NamePattern::parse("example.com/shop.(*Cart).Checkout");
  EXPECT_FALSE(p.is_glob());
  EXPECT_EQ(p.literal(), "example.com/shop.(*Cart).Checkout");
  EXPECT_TRUE(p.matches("example.com/shop.(*Cart).Checkout"));
  EXPECT_FALSE(p.matches("example.com/shop.(*SubCart).Checkout"));  // what a wildcard '*' would match
  EXPECT_FALSE(p.matches("example.com/shop.Cart.Checkout"));
  // Every method of *Cart: the '*' after '(' is literal, the last one is a wildcard.
  EXPECT_TRUE(m("example.com/shop.(*Cart).*", "example.com/shop.(*Cart).Checkout"));
  EXPECT_FALSE(m("example.com/shop.(*Cart).*", "example.com/shop.(*Order).Checkout"));
  EXPECT_TRUE(m("pkg.Cart.Total", "pkg.Cart.Total"));  // value method
}

TEST(NamePattern, StarStopsAtSlashDoubleStarDoesNot) {
  EXPECT_TRUE(m("main.*", "main.spinFor"));
  EXPECT_TRUE(m("main.*", "main.main.func1"));
  EXPECT_TRUE(m("main.*", "main.(*T).M"));
  EXPECT_TRUE(m("main.*", "main."));  // '*' may match nothing
  EXPECT_FALSE(m("main.*", "runtime.main"));
  EXPECT_FALSE(m("example.com/*.F", "example.com/x/v2.F"));
  EXPECT_TRUE(m("example.com/**.F", "example.com/x/v2.F"));
  EXPECT_TRUE(m("example.com/x/*.F", "example.com/x/v2.F"));
  EXPECT_TRUE(m("**", "example.com/x/v2.(*T).M"));
  EXPECT_FALSE(m("*", "example.com/x/v2.F"));
  EXPECT_TRUE(m("*.spin*", "main.spinFor"));
  EXPECT_TRUE(m("main.spinFor.func*", "main.spinFor.func1"));
  EXPECT_TRUE(m("main.spinFor.func*", "main.spinFor.func1.2"));  // nested closure
}

TEST(NamePattern, QuestionMarkIsOneCharacterButNotSlash) {
  EXPECT_TRUE(m("main.f?", "main.f1"));
  EXPECT_FALSE(m("main.f?", "main.f"));
  EXPECT_FALSE(m("main.f?", "main.f12"));
  EXPECT_FALSE(m("a?b", "a/b"));
}

TEST(NamePattern, GenericInstantiations) {
  EXPECT_TRUE(NamePattern::parse("pkg.Map[...]").is_glob());
  EXPECT_TRUE(m("pkg.Map[...]", "pkg.Map[go.shape.int]"));       // Go >= 1.21
  EXPECT_TRUE(m("pkg.Map[...]", "pkg.Map[go.shape.string_0]"));  // Go 1.18 - 1.20
  EXPECT_TRUE(m("pkg.Map[...]", "pkg.Map[go.shape.struct { A int; B string }]"));
  EXPECT_TRUE(m("pkg.Map[...]", "pkg.Map[go.shape.map[string][]int,go.shape.int]"));  // nested brackets
  EXPECT_TRUE(m("pkg.Map[...]", "pkg.Map[example.com/x.T]"));  // '/' inside the brackets is fine
  EXPECT_FALSE(m("pkg.Map[...]", "pkg.Map"));
  EXPECT_FALSE(m("pkg.Map[...]", "pkg.MapKeys[go.shape.int]"));
  EXPECT_FALSE(m("pkg.Map[...]", "pkg.Map[go.shape.int].func1"));
  EXPECT_FALSE(m("pkg.Map[...]", "pkg.Map[go.shape.int"));  // unbalanced
  EXPECT_TRUE(m("pkg.Map[...].func1", "pkg.Map[go.shape.int].func1"));
  EXPECT_TRUE(m("pkg.(*Stack[...]).Push", "pkg.(*Stack[go.shape.int]).Push"));
  EXPECT_TRUE(m("pkg.(*Stack[...]).*", "pkg.(*Stack[go.shape.*uint8]).Pop"));
}

TEST(NamePattern, Escapes) {
  const auto p = NamePattern::parse("main.a\\*b\\?c\\\\");
  EXPECT_FALSE(p.is_glob());
  EXPECT_EQ(p.literal(), "main.a*b?c\\");
  EXPECT_TRUE(p.matches("main.a*b?c\\"));
  EXPECT_FALSE(p.matches("main.aXb?c\\"));
  EXPECT_TRUE(m("pkg.F\\[...]", "pkg.F[...]"));  // an escaped '[' ends the generic token
  EXPECT_FALSE(m("pkg.F\\[...]", "pkg.F[int]"));
  try {
    NamePattern::parse("main.f\\");
    FAIL() << "a trailing backslash must be an error";
  } catch (const gate::Error& e) {
    EXPECT_NE(std::string(e.what()).find("main.f\\"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("fix:"), std::string::npos);
  }
}

TEST(NamePattern, BacktrackingStaysLinearish) {
  const std::string name(2000, 'a');
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(m("*a*a*a*a*a*a*a*a*b", name));
  EXPECT_FALSE(m("**a**a**a**a**a**a**b", name));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

}  // namespace
}  // namespace gate
