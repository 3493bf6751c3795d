# Fails when a catalogue in resources/translations is not up to date with the sources: lupdate run over a copy
# (the same sources and options as the update_translations target in app/CMakeLists.txt) finds a text that the
# copy does not translate. tst_translations checks the catalogue as committed; this catches a tr() text that
# was added without refreshing and translating it, and a file-local tr() helper anywhere in the sources. The
# message names the texts (or files) and the command that fixes it.
#   cmake -DROOT=<source dir> -DLUPDATE=<lupdate> -DWORK=<scratch dir> -P checktranslations.cmake
cmake_policy(VERSION 3.25)

if(NOT DEFINED ROOT OR NOT DEFINED WORK)
    message(FATAL_ERROR "usage: cmake -DROOT=<source dir> -DLUPDATE=<lupdate> -DWORK=<dir> -P checktranslations.cmake")
endif()
if(NOT LUPDATE OR NOT EXISTS "${LUPDATE}")
    message(FATAL_ERROR "lupdate is not installed (Debian package qt6-l10n-tools), so the translations cannot "
                        "be checked. Install it with `sh packaging/install-deps.sh`.")
endif()

file(GLOB_RECURSE sources "${ROOT}/app/*.cpp" "${ROOT}/ui/*.cpp" "${ROOT}/ui/*.h")
list(APPEND sources "${ROOT}/core/providers/providertable.cpp" "${ROOT}/core/agent/connectiontest.cpp")

# lupdate attributes a text to a context only through a class's tr() (QObject or Q_DECLARE_TR_FUNCTIONS): a
# file-local helper that calls QCoreApplication::translate hides its texts from the catalogue (issue 13).
file(GLOB_RECURSE everySource "${ROOT}/app/*.cpp" "${ROOT}/ui/*.cpp" "${ROOT}/ui/*.h" "${ROOT}/core/*.cpp"
     "${ROOT}/core/*.h")
set(localHelpers "")
foreach(source IN LISTS everySource)
    file(STRINGS "${source}" helper REGEX "^[ \t]*(static[ \t]+|inline[ \t]+)*QString[ \t]+tr[ \t]*\\(")
    if(helper)
        file(RELATIVE_PATH relative "${ROOT}" "${source}")
        string(APPEND localHelpers "\n  ${relative}")
    endif()
endforeach()
if(localHelpers)
    message(FATAL_ERROR "These files define their own tr(), which lupdate cannot attribute; use the class's "
                        "Q_DECLARE_TR_FUNCTIONS (or QObject::tr) instead:${localHelpers}")
endif()
file(GLOB catalogues "${ROOT}/resources/translations/*.ts")
if(NOT catalogues)
    message(FATAL_ERROR "no .ts files under ${ROOT}/resources/translations")
endif()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(stale "")
foreach(catalogue IN LISTS catalogues)
    get_filename_component(name "${catalogue}" NAME)
    file(COPY "${catalogue}" DESTINATION "${WORK}")
    execute_process(COMMAND "${LUPDATE}" -silent -no-obsolete -locations none -I "${ROOT}/core" -I "${ROOT}/ui"
                            ${sources} -ts "${WORK}/${name}"
                    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT status EQUAL 0)
        message(FATAL_ERROR "lupdate failed on ${name}: ${err}")
    endif()
    file(READ "${WORK}/${name}" refreshed)
    string(REPLACE ";" "@SEMICOLON@" refreshed "${refreshed}") # a ';' in a text would split CMake's list
    string(REGEX MATCHALL "<source>[^<]*</source>[ \n]*<translation type=\"unfinished\"" hits "${refreshed}")
    foreach(hit IN LISTS hits)
        string(REGEX REPLACE "<source>([^<]*)</source>.*" "\\1" text "${hit}")
        string(REPLACE "@SEMICOLON@" ";" text "${text}")
        string(APPEND stale "\n  ${name}: ${text}")
    endforeach()
endforeach()
if(stale)
    message(FATAL_ERROR "Texts in the sources that a catalogue does not translate:${stale}\n"
                        "Run `cmake --build build --target update_translations`, translate the new entries "
                        "in resources/translations, and commit them.")
endif()
message(STATUS "translations up to date: ${catalogues}")
