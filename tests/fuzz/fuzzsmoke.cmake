# The ctest test fuzz_smoke: configures and builds this folder as its own project with clang
# (-fsanitize=fuzzer,address,undefined), then runs every target for DURATION seconds, all at once (they share
# the cores, so the test takes about DURATION seconds after the build). Fails on a crash, leak, timeout or an
# input that needs more than 2 GB.
#   cmake -DSOURCE=<tests/fuzz> -DBINARY=<build/fuzz> -DCXX=<clang++> -DDURATION=20 [-DLAUNCHER=ccache] -P fuzzsmoke.cmake
cmake_policy(VERSION 3.25)
foreach(required SOURCE BINARY CXX DURATION)
    if(NOT DEFINED ${required})
        message(FATAL_ERROR "fuzzsmoke.cmake needs -D${required}=...")
    endif()
endforeach()

set(configure_args -S ${SOURCE} -B ${BINARY} -G Ninja -DCMAKE_CXX_COMPILER=${CXX})
if(LAUNCHER)
    list(APPEND configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
string(TIMESTAMP started "%s")
execute_process(COMMAND ${CMAKE_COMMAND} ${configure_args} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "configuring the fuzz build failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINARY} -j 2 RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "building the fuzz targets failed")
endif()
string(TIMESTAMP built "%s")
math(EXPR build_seconds "${built} - ${started}")
message(STATUS "fuzz build: ${build_seconds} s")

# All targets at once: one process each on the shared cores for DURATION seconds.
execute_process(COMMAND sh ${SOURCE}/run-fuzzers.sh ${BINARY} ${DURATION} 64 RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "a fuzz target failed: see ${BINARY}/logs and ${BINARY}/artifacts")
endif()
