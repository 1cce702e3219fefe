// run_as (runner/run_as.hpp): who the workload runs as, from run_as/--run-as, SUDO_UID or gate's own
// user; the environment it gets; the note a result keeps when that was root. The real change of
// user (a workload run as nobody, its files and a service's port) is tests/ci/run_as_test.sh's.
#include <gtest/gtest.h>
#include <unistd.h>

#include "common/error.hpp"
#include "runner/run_as.hpp"

namespace gate::runner {
namespace {

TEST(RunAs, DefaultIsSudoUidWhenRootElseGatesOwnUser) {
  const RunAs self = resolve_run_as("", "run_as", nullptr, nullptr);
  EXPECT_EQ(self.uid, geteuid());
  EXPECT_EQ(self.source, "gate's own user");
  EXPECT_FALSE(self.drop);
  if (geteuid() != 0) GTEST_SKIP() << "SUDO_UID applies only when gate runs as root";
  const RunAs sudo = resolve_run_as("", "run_as", "65534", "65534");
  EXPECT_EQ(sudo.uid, 65534u);
  EXPECT_EQ(sudo.gid, 65534u);
  EXPECT_EQ(sudo.source, "SUDO_UID");
  ASSERT_TRUE(sudo.drop);
  EXPECT_EQ(sudo.drop->uid, 65534u);
  EXPECT_FALSE(sudo.drop->groups.empty());
  EXPECT_NE(sudo.text().find("uid 65534"), std::string::npos) << sudo.text();
  // Asked for explicitly, the config's (or the flag's) user wins over SUDO_UID.
  EXPECT_EQ(resolve_run_as("0", "--run-as", "65534", "65534").uid, 0u);
}

TEST(RunAs, ByNameOrUidAndUnknownUsersRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "changing users needs root";
  const RunAs nobody = resolve_run_as("nobody", "--run-as", nullptr, nullptr);
  EXPECT_EQ(nobody.uid, 65534u);
  EXPECT_EQ(nobody.user, "nobody");
  EXPECT_EQ(nobody.text(), "uid 65534 (nobody), from --run-as");
  // A uid with no entry in the user database (a CI container's runner uid): its own group.
  const RunAs bare = resolve_run_as("54321", "--run-as", nullptr, nullptr);
  EXPECT_EQ(bare.uid, 54321u);
  EXPECT_EQ(bare.gid, 54321u);
  try {
    resolve_run_as("no-such-user-here", "run_as: in gate.yaml", nullptr, nullptr);
    FAIL() << "an unknown user was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.exit_code()), static_cast<int>(ExitCode::kUsage));
    EXPECT_NE(std::string(e.what()).find("run_as: in gate.yaml 'no-such-user-here'"), std::string::npos) << e.what();
  }
}

TEST(RunAs, EnvironmentOfTheUserUnlessTheConfigSetsIt) {
  RunAs as;
  as.uid = 1000;
  as.user = "ci";
  as.home = "/home/ci";
  EXPECT_TRUE(run_as_env(as, {}).empty());  // gate's own user: nothing changes
  as.drop = Credentials{1000, 1000, {1000}};
  const auto env = run_as_env(as, {{"HOME", "/work"}});
  EXPECT_EQ(env.count("HOME"), 0u);  // the config's wins
  EXPECT_EQ(env.at("USER"), "ci");
  EXPECT_EQ(env.at("LOGNAME"), "ci");
}

TEST(RunAs, AResultRecordsItAndNamesRoot) {
  ResultFile r;
  EXPECT_FALSE(root_workload(r, "head"));  // written before run_as: nothing said
  RunAs root;
  root.source = "gate's own user";
  record_run_as(root, r);
  const auto note = root_workload(r, "head");
  ASSERT_TRUE(note);
  EXPECT_EQ(note->side, "head");
  EXPECT_EQ(note->who, "root (uid 0), gate's own user");
  RunAs user;
  user.uid = 1000;
  user.source = "SUDO_UID";
  record_run_as(user, r);
  EXPECT_FALSE(root_workload(r, "head"));
}

}  // namespace
}  // namespace gate::runner
