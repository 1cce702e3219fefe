// The PostgreSQL back end in a gate built without libpq (GATE_POSTGRESQL=OFF, as the
// self-contained binary is): a postgresql:// history is refused with the way to get one.
#include "common/error.hpp"
#include "history/db.hpp"

namespace gate::history {

std::unique_ptr<Db> open_postgresql(const std::string& /*uri*/, const std::string& shown) {
  throw Error::make("--db " + shown, "needs PostgreSQL, and this gate was built without libpq (the self-contained "
                                     "binary links only glibc)",
                    "use a gate built from source with ci/build.sh (it links libpq), or a SQLite history "
                    "(--db sqlite:PATH, e.g. on the runner that ingests)",
                    ExitCode::kUsage);
}

}  // namespace gate::history
