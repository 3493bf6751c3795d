#include "tools/defaulttools.h"

#include "tools/askusertool.h"
#include "tools/bashtool.h"
#include "tools/editfiletool.h"
#include "tools/globtool.h"
#include "tools/greptool.h"
#include "tools/readfiletool.h"
#include "tools/webfetchtool.h"
#include "tools/writefiletool.h"

namespace keen {

ToolRegistry createDefaultTools(bool interactive)
{
    ToolRegistry registry;
    registry.add(std::make_shared<ReadFileTool>());
    registry.add(std::make_shared<EditFileTool>());
    registry.add(std::make_shared<WriteFileTool>());
    registry.add(std::make_shared<GlobTool>());
    registry.add(std::make_shared<GrepTool>());
    registry.add(std::make_shared<BashTool>());
    registry.add(std::make_shared<WebFetchTool>());
    if (interactive)
        registry.add(std::make_shared<AskUserTool>());
    return registry;
}

} // namespace keen
