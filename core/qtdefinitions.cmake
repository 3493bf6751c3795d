# The Qt settings every target compiles with: the main build's keen_common_cfg (top CMakeLists.txt) and the
# fuzz project (tests/fuzz), which compiles core sources with clang and must see the same code.
set(KEEN_QT_DEFINITIONS
    QT_NO_CAST_FROM_ASCII
    QT_NO_CONTEXTLESS_CONNECT
    QT_USE_QSTRINGBUILDER
    QT_NO_NARROWING_CONVERSIONS_IN_CONNECT
    QT_NO_KEYWORDS
    QT_NO_FOREACH
    QT_NO_CAST_FROM_BYTEARRAY
    QT_NO_CAST_TO_ASCII
    QT_STRICT_ITERATORS
    # Qt 6.5+ reads the first name, Qt 6.4 (Debian 12) the second.
    QT_DISABLE_DEPRECATED_UP_TO=0x060400
    QT_DISABLE_DEPRECATED_BEFORE=0x060400)
