#include "defaulttools.h"

#include "askusertool.h"
#include "bashtool.h"
#include "editfiletool.h"
#include "globtool.h"
#include "greptool.h"
#include "readfiletool.h"
#include "writefiletool.h"

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
    if (interactive)
        registry.add(std::make_shared<AskUserTool>());
    return registry;
}

} // namespace keen
