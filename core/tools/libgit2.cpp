#include "tools/libgit2.h"

#include <QCoreApplication>

#include <dlfcn.h>

#include <atomic>

namespace keen {

namespace {

std::atomic_bool g_loaded{false};

struct Loaded
{
    LibGit2 api;
    QString error; // empty when api is usable
};

template<typename Function> bool resolve(void *handle, const char *name, Function &function, QString &error)
{
    function = reinterpret_cast<Function>(dlsym(handle, name));
    if (!function && error.isEmpty())
        error = QCoreApplication::translate("LibGit2", "%1 has no function %2")
                    .arg(QStringLiteral(KEEN_LIBGIT2_SONAME), QString::fromLatin1(name));
    return function != nullptr;
}

Loaded load()
{
    Loaded loaded;
    // Never closed: libgit2 keeps global state (and its threads' keys) for the life of the process.
    void *handle = dlopen(KEEN_LIBGIT2_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        loaded.error = QCoreApplication::translate("LibGit2", "cannot load %1: %2")
                           .arg(QStringLiteral(KEEN_LIBGIT2_SONAME), QString::fromLocal8Bit(dlerror()));
        return loaded;
    }
    decltype(&::git_libgit2_init) init = nullptr;
    LibGit2 &api = loaded.api;
    QString &error = loaded.error;
    const bool complete = resolve(handle, "git_libgit2_init", init, error) &&
                          resolve(handle, "git_repository_open_ext", api.repository_open_ext, error) &&
                          resolve(handle, "git_repository_free", api.repository_free, error) &&
                          resolve(handle, "git_repository_workdir", api.repository_workdir, error) &&
                          resolve(handle, "git_repository_is_bare", api.repository_is_bare, error) &&
                          resolve(handle, "git_repository_index", api.repository_index, error) &&
                          resolve(handle, "git_index_entrycount", api.index_entrycount, error) &&
                          resolve(handle, "git_index_get_byindex", api.index_get_byindex, error) &&
                          resolve(handle, "git_index_free", api.index_free, error) &&
                          resolve(handle, "git_status_list_new", api.status_list_new, error) &&
                          resolve(handle, "git_status_list_entrycount", api.status_list_entrycount, error) &&
                          resolve(handle, "git_status_byindex", api.status_byindex, error) &&
                          resolve(handle, "git_status_list_free", api.status_list_free, error) &&
                          resolve(handle, "git_ignore_path_is_ignored", api.ignore_path_is_ignored, error);
    if (!complete)
        return loaded;
    if (init() < 0) {
        error = QCoreApplication::translate("LibGit2", "%1 failed to initialise")
                    .arg(QStringLiteral(KEEN_LIBGIT2_SONAME));
        return loaded;
    }
    g_loaded = true;
    return loaded;
}

const Loaded &instance()
{
    static const Loaded loaded = load(); // thread-safe, once
    return loaded;
}

} // namespace

const LibGit2 *LibGit2::get()
{
    const Loaded &loaded = instance();
    return loaded.error.isEmpty() ? &loaded.api : nullptr;
}

QString LibGit2::loadError()
{
    return instance().error;
}

bool LibGit2::isLoaded()
{
    return g_loaded;
}

} // namespace keen
