# Sourced by the ci/ scripts: debian_mirror prints the Debian mirror of the machine's own apt sources
# (the URI serving the release the machine runs, e.g. plain 'bookworm'), so that other suites and
# source packages come from it and no host name is ever written into the repository.
# Usage: debian_mirror [SUITE]   (default: this machine's release codename)
debian_mirror() {
  local suite="${1:-$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")}" uri=""
  if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
    # deb822: take the URIs of the stanza whose Suites include the plain suite.
    uri=$(awk -v want="$suite" '
      /^[[:space:]]*$/ { if (suite_ok && u != "") { print u; exit } suite_ok=0; u=""; next }
      /^URIs:/ { u=$2 }
      /^Suites:/ { for (i=2;i<=NF;i++) if ($i==want) suite_ok=1 }
      END { if (suite_ok && u != "") print u }' /etc/apt/sources.list.d/debian.sources | head -n1)
  fi
  if [[ -z "$uri" && -f /etc/apt/sources.list ]]; then
    uri=$(awk -v want="$suite" '$1=="deb" && $0 ~ (" " want " ") { for (i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' /etc/apt/sources.list)
  fi
  [[ -n "$uri" ]] && echo "$uri"
}
