#pragma once

#include <QString>

#include <git2.h> // declarations only: the library itself is opened on first use

namespace keen {

// libgit2's functions this app uses, resolved with dlopen the first time something needs them. Linked
// normally, libgit2 and the libraries only it brings (mbedTLS, libssh2, libcrypto, http-parser) cost every
// start of keen-desktop about 6 ms of loading and binding, although most runs ask git nothing but the branch,
// which GitInfo reads from the repository's files (docs/PERFORMANCE.md).
class LibGit2
{
public:
    // The loaded and initialised library, or nullptr when it cannot be loaded (loadError() says why).
    // Loads once; safe from any thread.
    static const LibGit2 *get();
    static QString loadError();
    // Whether get() has loaded it in this process (for tests of what stays unloaded).
    static bool isLoaded();

    decltype(&::git_repository_open_ext) repository_open_ext = nullptr;
    decltype(&::git_repository_free) repository_free = nullptr;
    decltype(&::git_repository_workdir) repository_workdir = nullptr;
    decltype(&::git_repository_is_bare) repository_is_bare = nullptr;
    decltype(&::git_repository_index) repository_index = nullptr;
    decltype(&::git_index_entrycount) index_entrycount = nullptr;
    decltype(&::git_index_get_byindex) index_get_byindex = nullptr;
    decltype(&::git_index_free) index_free = nullptr;
    decltype(&::git_status_list_new) status_list_new = nullptr;
    decltype(&::git_status_list_entrycount) status_list_entrycount = nullptr;
    decltype(&::git_status_byindex) status_byindex = nullptr;
    decltype(&::git_status_list_free) status_list_free = nullptr;
    decltype(&::git_ignore_path_is_ignored) ignore_path_is_ignored = nullptr;
};

} // namespace keen
