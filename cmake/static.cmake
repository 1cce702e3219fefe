# GATE_STATIC=ON: one self-contained gate executable that loads no shared library at all: glibc
# too is linked in (-static), so the file has no GLIBC_ symbol versions and runs on any x86-64
# Linux whatever its glibc (Debian 11's 2.31 is proved by tests/ci/glibc_floor_test.sh).
# Why fully static and not a build on an older Debian: gate needs C++20 and libbpf >= 1.0, which
# Debian 11 lacks. The link warns twice, measured: getaddrinfo (runner/process.cpp, ready_tcp's
# host: a numeric address or /etc/hosts' localhost, which glibc 2.36's static NSS "files" resolves
# in a glibc 2.31 system, tried in a Debian 11 chroot) and dlopen (SQLite's extension loading,
# which gate never enables). gate looks up no user or group.
# Included after the find_* calls: it re-points their targets at the static archives Debian's -dev
# packages ship, and builds simdjson from its amalgamated source, since Debian 12's
# libsimdjson-dev ships no libsimdjson.a (ci/build-static.sh fetches that source).

set(GATE_SIMDJSON_SOURCE "" CACHE PATH
    "GATE_STATIC: folder holding simdjson.cpp and simdjson.h (the amalgamation in simdjson's 'singleheader/')")

# Absolute path of lib<name>.a, or a configure error that names the package to install.
function(gate_static_archive out name package)
  find_library(GATE_STATIC_LIB_${name} NAMES lib${name}.a NO_CACHE)
  if(NOT GATE_STATIC_LIB_${name})
    message(FATAL_ERROR "GATE_STATIC: lib${name}.a not found: install Debian's ${package} "
                        "(ci/build-static.sh does), or configure without -DGATE_STATIC=ON")
  endif()
  set(${out} ${GATE_STATIC_LIB_${name}} PARENT_SCOPE)
endfunction()

gate_static_archive(a_bpf bpf libbpf-dev)
gate_static_archive(a_elf elf libelf-dev)
gate_static_archive(a_dw dw libdw-dev)
gate_static_archive(a_z z zlib1g-dev)
gate_static_archive(a_lzma lzma liblzma-dev)
gate_static_archive(a_bz2 bz2 libbz2-dev)
gate_static_archive(a_capstone capstone libcapstone-dev)
gate_static_archive(a_yaml yaml-cpp libyaml-cpp-dev)

# Newer elfutils (Debian 13's 0.192) also decompress zstd sections: take libzstd.a when libdw asks.
set(dw_extra)
if(LIBDW_STATIC_LIBRARIES MATCHES "zstd")
  gate_static_archive(a_zstd zstd libzstd-dev)
  list(APPEND dw_extra ${a_zstd})
endif()

# Each target lists its archive and then what it depends on, so one link line order is right.
set_property(TARGET PkgConfig::LIBELF PROPERTY INTERFACE_LINK_LIBRARIES ${a_elf} ${a_z} ${dw_extra})
set_property(TARGET PkgConfig::LIBBPF PROPERTY INTERFACE_LINK_LIBRARIES ${a_bpf} ${a_elf} ${a_z} ${dw_extra})
set_property(TARGET PkgConfig::LIBDW PROPERTY INTERFACE_LINK_LIBRARIES
             ${a_dw} ${a_elf} ${a_lzma} ${a_bz2} ${a_z} ${dw_extra})
set_property(TARGET PkgConfig::CAPSTONE PROPERTY INTERFACE_LINK_LIBRARIES ${a_capstone})

# yaml-cpp's package config imports the shared library (0.8 names it yaml-cpp::yaml-cpp, with a
# yaml-cpp alias): point every configuration of the real target at the archive.
set(yaml_target yaml-cpp)
get_target_property(aliased yaml-cpp ALIASED_TARGET)
if(aliased)
  set(yaml_target ${aliased})
endif()
get_target_property(yaml_configs ${yaml_target} IMPORTED_CONFIGURATIONS)
foreach(cfg IN LISTS yaml_configs)
  set_target_properties(${yaml_target} PROPERTIES IMPORTED_LOCATION_${cfg} ${a_yaml} IMPORTED_SONAME_${cfg} "")
endforeach()
set_target_properties(${yaml_target} PROPERTIES IMPORTED_LOCATION ${a_yaml})

if(NOT EXISTS "${GATE_SIMDJSON_SOURCE}/simdjson.cpp" OR NOT EXISTS "${GATE_SIMDJSON_SOURCE}/simdjson.h")
  message(FATAL_ERROR "GATE_STATIC: GATE_SIMDJSON_SOURCE='${GATE_SIMDJSON_SOURCE}' holds no simdjson.cpp and "
                      "simdjson.h: run ci/build-static.sh, which unpacks Debian's simdjson source package there")
endif()
add_library(gate_simdjson STATIC ${GATE_SIMDJSON_SOURCE}/simdjson.cpp)
target_include_directories(gate_simdjson SYSTEM PUBLIC ${GATE_SIMDJSON_SOURCE})
target_compile_options(gate_simdjson PRIVATE -w)  # third-party code: its warnings are not ours
add_library(simdjson::simdjson ALIAS gate_simdjson)

# The C++ runtime and glibc inside the executable too: nothing is left to the host but the kernel.
# GATE_STATIC_GLIBC=OFF goes back to a glibc-dynamic file (its floor: the build host's glibc).
option(GATE_STATIC_GLIBC "GATE_STATIC: link glibc statically too (no GLIBC_ symbol versions)" ON)
if(GATE_STATIC_GLIBC)
  add_link_options(-static)
else()
  add_link_options(-static-libstdc++ -static-libgcc)
endif()
