#include "config/qtarguments.h"

namespace keen {

QtArguments::QtArguments(int argc, const char *const *argv)
{
    for (int i = 0; i < argc; ++i) {
        QByteArray argument(argv[i]);
        for (const QByteArray &spelling : {QByteArrayLiteral("--session"), QByteArrayLiteral("-session")}) {
            if (argument == spelling || argument.startsWith(QByteArray(spelling).append('='))) {
                argument = QByteArrayLiteral("--resume").append(argument.mid(spelling.size()));
                break;
            }
        }
        m_arguments.append(argument);
    }
    for (QByteArray &argument : m_arguments)
        m_pointers.push_back(argument.data());
    m_pointers.push_back(nullptr);
    m_argc = int(m_arguments.size());
}

} // namespace keen
