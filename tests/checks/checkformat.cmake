# Fails when a C++ file under core/, ui/, app/ or tests/ is not formatted as .clang-format says, naming each file
# and the command that fixes it. clang-format comes from Debian (packaging/install-deps.sh); when it is missing
# the check fails and says so, it never passes without looking.
#   cmake -DROOT=<source dir> -DCLANG_FORMAT=<clang-format or empty> -P checkformat.cmake
cmake_policy(VERSION 3.25)

if(NOT DEFINED ROOT)
    message(FATAL_ERROR "usage: cmake -DROOT=<source dir> -DCLANG_FORMAT=<program> -P checkformat.cmake")
endif()
if(NOT CLANG_FORMAT OR NOT EXISTS "${CLANG_FORMAT}")
    message(FATAL_ERROR "clang-format is not installed, so the formatting cannot be checked. Install it with "
                        "`sh packaging/install-deps.sh` (Debian package clang-format), then run cmake again.")
endif()
if(NOT EXISTS "${ROOT}/.clang-format")
    message(FATAL_ERROR "${ROOT}/.clang-format is missing")
endif()

file(GLOB_RECURSE files RELATIVE "${ROOT}" "${ROOT}/core/*.h" "${ROOT}/core/*.cpp" "${ROOT}/ui/*.h"
     "${ROOT}/ui/*.cpp" "${ROOT}/app/*.h" "${ROOT}/app/*.cpp" "${ROOT}/tests/*.h" "${ROOT}/tests/*.cpp")
list(FILTER files EXCLUDE REGEX "^tests/fixtures/")
list(LENGTH files count)
if(count EQUAL 0)
    message(FATAL_ERROR "no C++ files found under ${ROOT}")
endif()
# One run over every file: --dry-run --Werror reports each file whose formatting would change.
execute_process(COMMAND "${CLANG_FORMAT}" --dry-run --Werror ${files} WORKING_DIRECTORY "${ROOT}"
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
    string(REGEX MATCHALL "[^\n]*: error: code should be clang-formatted" hits "${err}")
    set(bad "")
    foreach(hit IN LISTS hits)
        string(REGEX REPLACE ":[0-9]+:[0-9]+: error: code should be clang-formatted$" "" path "${hit}")
        list(APPEND bad "${path}")
    endforeach()
    list(REMOVE_DUPLICATES bad)
    if(bad STREQUAL "")
        message(FATAL_ERROR "clang-format failed (exit ${status}):\n${err}")
    endif()
    list(JOIN bad " " badText)
    message(FATAL_ERROR "not clang-formatted: ${badText}\nFix with: clang-format -i ${badText}")
endif()
message(STATUS "format: ${count} files match .clang-format")
