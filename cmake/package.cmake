# The Debian package of the self-contained gate (GATE_STATIC=ON; `cpack -G DEB` in its build tree,
# run by ci/build-static.sh --deb): /usr/bin/gate, the CI templates and their helper scripts
# (get-gate.sh, pre-merge.sh, comment.py) under /usr/share/gate/ci, for self-hosted runners. Fully static (GATE_STATIC_GLIBC, the default): it
# depends on nothing; glibc-dynamic: on libc6 (>= the floor ci/build-static.sh measured).
# The action calls its siblings ($GITHUB_ACTION_PATH/../get-gate.sh, ../pre-merge.sh): ship them.
install(PROGRAMS ${PROJECT_SOURCE_DIR}/ci/pre-merge.sh ${PROJECT_SOURCE_DIR}/ci/get-gate.sh ${PROJECT_SOURCE_DIR}/ci/comment.py
        DESTINATION share/gate/ci)
install(FILES ${PROJECT_SOURCE_DIR}/ci/github/action.yml ${PROJECT_SOURCE_DIR}/ci/github/example-workflow.yml
              ${PROJECT_SOURCE_DIR}/ci/github/example-matrix-workflow.yml
        DESTINATION share/gate/ci/github)
install(FILES ${PROJECT_SOURCE_DIR}/ci/gitlab/gate.gitlab-ci.yml DESTINATION share/gate/ci/gitlab)
install(FILES ${PROJECT_SOURCE_DIR}/ci/jenkins/Jenkinsfile ${PROJECT_SOURCE_DIR}/ci/jenkins/Jenkinsfile.shards
        DESTINATION share/gate/ci/jenkins)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gate)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CONTACT "gate maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "performance-regression gate for Go services (eBPF uprobes + statistics)")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# glibc's floor is the newest GLIBC_ symbol version the executable needs (ci/build-static.sh
# measures it and passes it here); empty: none (glibc linked in), so no dependency at all.
set(GATE_GLIBC_FLOOR "" CACHE STRING "Oldest glibc the static gate runs on (the .deb's libc6 dependency); empty: none")
if(GATE_GLIBC_FLOOR)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= ${GATE_GLIBC_FLOOR})")
endif()
include(CPack)
