# Proves checkformat.cmake catches a badly formatted file, passes a formatted one and fails clearly without
# clang-format.
#   cmake -DCHECK=<checkformat.cmake> -DCLANG_FORMAT=<program> -DSOURCE=<source dir> -DWORK=<folder> -P ...
cmake_policy(VERSION 3.25)

set(failures "")
function(keen_run name clangFormat expectPass expectText)
    execute_process(COMMAND "${CMAKE_COMMAND}" -DROOT=${WORK}/${name} -DCLANG_FORMAT=${clangFormat} -P "${CHECK}"
                    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
    set(output "${out}${err}")
    if(expectPass AND NOT status EQUAL 0)
        list(APPEND failures "${name}: expected to pass: ${output}")
    elseif(NOT expectPass AND status EQUAL 0)
        list(APPEND failures "${name}: expected to fail: ${output}")
    endif()
    string(FIND "${output}" "${expectText}" at)
    if(at EQUAL -1)
        list(APPEND failures "${name}: the output does not say \"${expectText}\": ${output}")
    endif()
    set(failures "${failures}" PARENT_SCOPE)
endfunction()

foreach(name formatted messy)
    file(REMOVE_RECURSE "${WORK}/${name}")
    file(COPY "${SOURCE}/.clang-format" DESTINATION "${WORK}/${name}")
    file(WRITE "${WORK}/${name}/core/base/good.h" "#pragma once\n\nnamespace keen {\n\nint answer();\n\n} // namespace keen\n")
endforeach()
file(WRITE "${WORK}/messy/ui/chat/bad.cpp" "int  answer( ) {return 42;}\n")

keen_run(formatted "${CLANG_FORMAT}" TRUE "files match .clang-format")
keen_run(messy "${CLANG_FORMAT}" FALSE "not clang-formatted: ui/chat/bad.cpp")
keen_run(formatted "" FALSE "clang-format is not installed")

list(LENGTH failures failureCount)
if(failureCount GREATER 0)
    list(JOIN failures "\n  " text)
    message(FATAL_ERROR "the format check misjudged ${failureCount} case(s):\n  ${text}")
endif()
message(STATUS "the format check passes formatted code, names a messy file and needs clang-format")
