# Proves that checkdependencies.cmake fails on a planted bad include and passes a tree that follows the matrix:
# each case writes a small tree under WORK, runs the check on it and compares the outcome and the message.
#   cmake -DCHECK=<checkdependencies.cmake> -DWORK=<scratch folder> -P checkdependencies_selftest.cmake
cmake_policy(VERSION 3.25)

if(NOT DEFINED CHECK OR NOT DEFINED WORK)
    message(FATAL_ERROR "usage: cmake -DCHECK=<script> -DWORK=<folder> -P checkdependencies_selftest.cmake")
endif()

set(failures "")

# files: a list of "path=include1,include2" (an empty include list makes a file with no includes; an include
# in <> is written as a system header).
function(keen_case name expectPass expectText)
    set(root "${WORK}/${name}")
    file(REMOVE_RECURSE "${root}")
    foreach(spec IN LISTS ARGN)
        string(REPLACE "=" ";" pair "${spec}")
        list(GET pair 0 path)
        list(LENGTH pair count)
        set(content "#pragma once\n")
        if(count GREATER 1)
            list(GET pair 1 includes)
            string(REPLACE "," ";" includes "${includes}")
            foreach(include IN LISTS includes)
                if(include MATCHES "^<")
                    string(APPEND content "#include ${include}\n") # a system header, as written
                else()
                    string(APPEND content "#include \"${include}\"\n")
                endif()
            endforeach()
        endif()
        file(WRITE "${root}/${path}" "${content}")
    endforeach()
    execute_process(COMMAND "${CMAKE_COMMAND}" -DROOT=${root} -P "${CHECK}" RESULT_VARIABLE status
                    OUTPUT_VARIABLE out ERROR_VARIABLE err)
    set(output "${out}${err}")
    if(expectPass AND NOT status EQUAL 0)
        list(APPEND failures "${name}: expected to pass, failed with: ${output}")
    elseif(NOT expectPass AND status EQUAL 0)
        list(APPEND failures "${name}: expected to fail, passed: ${output}")
    endif()
    if(NOT expectText STREQUAL "")
        string(FIND "${output}" "${expectText}" at)
        if(at EQUAL -1)
            list(APPEND failures "${name}: the output does not say \"${expectText}\": ${output}")
        endif()
    endif()
    set(failures "${failures}" PARENT_SCOPE)
endfunction()

# A layered tree: every include runs down the matrix; ui sees the provider table header only.
set(good
    "core/base/result.h="
    "core/conversation/message.h=base/result.h"
    "core/stream/sse.h=conversation/message.h"
    "core/providers/providertable.h=stream/sse.h"
    "core/providers/openai/chat.h=providers/providertable.h,providers/openai/decoder.h"
    "core/providers/openai/decoder.h="
    "core/loop/toolloop.h=providers/openai/chat.h"
    "core/agent/agentsession.h=loop/toolloop.h"
    "ui/chat/chatview.h=agent/agentsession.h,providers/providertable.h,mainwindow.h"
    "ui/mainwindow.h=chat/chatview.h"
    "app/main.cpp=mainwindow.h,moc_main.cpp")
keen_case(clean TRUE "follow the matrix" ${good})
# The known violation of issue 13: auth reaching up into providers.
keen_case(upward FALSE "core/base/result.h: base -> loop (#include \"loop/toolloop.h\") is not in the matrix"
          ${good} "core/base/result.h=loop/toolloop.h" "core/loop/toolloop.h=")
keen_case(authUsesProviders FALSE "core/auth/secretstore.cpp: auth -> providers"
          ${good} "core/auth/secretstore.cpp=providers/providertable.h")
# Sibling wire formats stay apart.
keen_case(familyToFamily FALSE "providers/openai -> providers/anthropic"
          ${good} "core/providers/anthropic/messages.h=" "core/providers/openai/chat.h=providers/anthropic/messages.h")
# The UI gets the provider table, not a protocol.
keen_case(uiUsesProtocol FALSE "ui/chat/chatview.h: ui -> providers/openai"
          ${good} "ui/chat/chatview.h=providers/openai/chat.h")
# The UI reads typed values; a JSON parser in ui/ is refused, a JSON value passed through is not.
keen_case(uiParsesJson FALSE "ui/chat/tooldisplay.cpp: #include <QJsonDocument>: the UI reads typed core values"
          ${good} "ui/chat/tooldisplay.cpp=<QJsonDocument>")
keen_case(uiPassesJson TRUE "follow the matrix" ${good} "ui/chat/chatitem.h=<QJsonValue>")
keen_case(climb FALSE "climbs with ../" ${good} "core/loop/toolloop.h=../base/result.h")
keen_case(missing FALSE "names no file" ${good} "core/loop/toolloop.h=loop/gone.h")
keen_case(testClimb FALSE "tests/mcp/tst_mcp.cpp: #include \"../tools/fake.h\" climbs with ../"
          ${good} "tests/tools/fake.h=" "tests/mcp/tst_mcp.cpp=../tools/fake.h")

list(LENGTH failures failureCount)
if(failureCount GREATER 0)
    list(JOIN failures "\n  " text)
    message(FATAL_ERROR "the dependency check misjudged ${failureCount} case(s):\n  ${text}")
endif()
message(STATUS "the dependency check passes the layered tree and fails every planted violation")
