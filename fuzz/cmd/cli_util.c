/* cli_util.c — the option helpers the subcommands share: --tol,
 * --watchdog, --max-tries, "--name=V" / "--name V" values, the --threads
 * note, and the checks of output files and directories made before any
 * work is done. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/cmd/cli_util.h"
#include "fuzz/files.h"
#include "fuzz/pool.h"

int df_parse_tol_cli(const char *cmd, const char *arg, double *tol)
{
    if (df_parse_double(arg, tol) == 0 && *tol >= 0)
        return 0;
    df_usage_error(cmd, "invalid --tol '%s'", arg);
    return -1;
}

int df_parse_watchdog_cli(const char *cmd, const char *arg, double *watchdog_s)
{
    if (df_parse_duration(arg, watchdog_s) == 0 && *watchdog_s > 0)
        return 0;
    df_usage_error(cmd, "invalid --watchdog '%s'", arg);
    return -1;
}

int df_parse_max_tries_cli(const char *cmd, const char *arg, uint64_t *tries)
{
    if (df_parse_u64(arg, tries) == 0 && *tries > 0)
        return 0;
    df_usage_error(cmd, "invalid --max-tries '%s'", arg);
    return -1;
}

void df_note_threads(const char *cmd, uint64_t threads)
{
    unsigned cpus = df_usable_cpus();
    if (threads > cpus)
        fprintf(stderr, "dotfuzz %s: --threads %llu is more than the %u CPU(s) this process "
                        "may use: the threads share them\n", cmd, (unsigned long long)threads,
                cpus);
}

int df_output_ok_cli(const char *cmd, const char *opt, const char *path)
{
    char msg[200];
    if (df_output_ok(path, msg, sizeof msg) == 0)
        return 0;
    fprintf(stderr, "dotfuzz %s: %s %s: %s\n", cmd, opt, path, msg);
    return -1;
}

int df_dir_writable_cli(const char *cmd, const char *opt, const char *dir)
{
    /* dir, or the nearest of its parents that exists (dir is made there
     * when the first file is saved), must take a new entry */
    char at[4096];
    snprintf(at, sizeof at, "%s", *dir ? dir : ".");
    struct stat st;
    while (stat(at, &st) != 0 && errno == ENOENT) {
        char *slash = strrchr(at, '/');
        if (!slash)
            snprintf(at, sizeof at, ".");
        else
            slash[slash == at] = 0; /* "/x" leaves "/" */
    }
    int ok = stat(at, &st) == 0 && S_ISDIR(st.st_mode);
    if (ok) { /* a file made and removed: permissions, read-only mounts, root alike */
        char probe[4200];
        snprintf(probe, sizeof probe, "%s/.dotfuzz-probe-XXXXXX", at);
        int fd = mkstemp(probe);
        ok = fd >= 0;
        if (ok) {
            close(fd);
            unlink(probe);
        }
    }
    if (!ok)
        fprintf(stderr, "dotfuzz %s: %s %s cannot be written (%s: %s)\n", cmd, opt, dir, at,
                errno ? strerror(errno) : "not a directory");
    return ok ? 0 : -1;
}

const char *df_option_value(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t len = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, len) != 0)
        return NULL;
    if (arg[len] == '=')
        return arg + len + 1;
    if (arg[len] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}
