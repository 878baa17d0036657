/* report_doc.c — the report's text in Markdown or HTML (report_doc.h).
 * Markdown: a table cell's '|' escaped, control characters blanked; HTML:
 * & < > " as entities. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/cmd/report_doc.h"
#include "fuzz/run/campaign_dir.h"

static void esc(df_doc *d, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch < 0x20)
            fputc(' ', d->f);
        else if (!d->html && ch == '|')
            fputs("\\|", d->f);
        else if (!d->html)
            fputc(ch, d->f);
        else if (ch == '&')
            fputs("&amp;", d->f);
        else if (ch == '<')
            fputs("&lt;", d->f);
        else if (ch == '>')
            fputs("&gt;", d->f);
        else if (ch == '"')
            fputs("&quot;", d->f);
        else
            fputc(ch, d->f);
    }
}

static void vtext(df_doc *d, const char *fmt, va_list ap)
{
    char buf[DF_CAMPAIGN_PATH_CAP + 512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    esc(d, buf);
}

void df_doc_text(df_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vtext(d, fmt, ap);
    va_end(ap);
}

void df_doc_h(df_doc *d, int level, const char *id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (d->html) {
        fprintf(d->f, "<h%d%s%s%s>", level, id ? " id=\"" : "", id ? id : "", id ? "\"" : "");
        vtext(d, fmt, ap);
        fprintf(d->f, "</h%d>\n", level);
    } else {
        fprintf(d->f, "%.*s ", level, "####");
        vtext(d, fmt, ap);
        fputs("\n\n", d->f);
    }
    va_end(ap);
}

void df_doc_p_open(df_doc *d)
{
    if (d->html)
        fputs("<p>", d->f);
}

void df_doc_p_close(df_doc *d)
{
    fputs(d->html ? "</p>\n" : "\n\n", d->f);
}

void df_doc_block(df_doc *d, int cell, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (cell)
        df_doc_cell_open(d);
    else
        df_doc_p_open(d);
    vtext(d, fmt, ap);
    if (cell)
        df_doc_cell_close(d);
    else
        df_doc_p_close(d);
    va_end(ap);
}

void df_doc_code(df_doc *d, const char *s)
{
    if (d->html) {
        fputs("<code>", d->f);
        esc(d, s);
        fputs("</code>", d->f);
        return;
    }
    int tick = strchr(s, '`') != NULL; /* a wider fence holds backticks */
    fputs(tick ? "`` " : "`", d->f);
    esc(d, s);
    fputs(tick ? " ``" : "`", d->f);
}

void df_doc_table(df_doc *d, const char *align, const char *const *heads)
{
    size_t cols = strlen(align);
    d->align = align;
    fputs(d->html ? "<table>\n<thead><tr>" : "|", d->f);
    for (size_t i = 0; i < cols; i++) {
        if (d->html) {
            fprintf(d->f, "<th%s>", align[i] == 'r' ? " class=\"r\"" : "");
            esc(d, heads[i]);
            fputs("</th>", d->f);
        } else {
            fputs(" ", d->f);
            esc(d, heads[i]);
            fputs(" |", d->f);
        }
    }
    if (d->html) {
        fputs("</tr></thead>\n<tbody>\n", d->f);
        return;
    }
    fputs("\n|", d->f);
    for (size_t i = 0; i < cols; i++)
        fputs(align[i] == 'r' ? "--:|" : "---|", d->f);
    fputs("\n", d->f);
}

void df_doc_row_open(df_doc *d)
{
    d->col = 0;
    fputs(d->html ? "<tr>" : "|", d->f);
}

void df_doc_cell_open(df_doc *d)
{
    int right = d->align && d->col < strlen(d->align) && d->align[d->col] == 'r';
    fputs(!d->html ? " " : right ? "<td class=\"r\">" : "<td>", d->f);
}

void df_doc_cell_close(df_doc *d)
{
    d->col++;
    fputs(d->html ? "</td>" : " |", d->f);
}

void df_doc_cell_code(df_doc *d, const char *s)
{
    df_doc_cell_open(d);
    df_doc_code(d, s);
    df_doc_cell_close(d);
}

void df_doc_row_close(df_doc *d)
{
    fputs(d->html ? "</tr>\n" : "\n", d->f);
}

void df_doc_table_close(df_doc *d)
{
    d->align = NULL;
    fputs(d->html ? "</tbody>\n</table>\n" : "\n", d->f);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The bytes of f as base64 (RFC 4648), on d's stream. */
static void base64_copy(FILE *f, FILE *out)
{
    unsigned char in[3];
    size_t n;
    while ((n = fread(in, 1, 3, f)) > 0) {
        unsigned v = (unsigned)in[0] << 16 | (n > 1 ? (unsigned)in[1] << 8 : 0) |
                     (n > 2 ? in[2] : 0);
        char q[4] = {b64[v >> 18 & 63], b64[v >> 12 & 63], n > 1 ? b64[v >> 6 & 63] : '=',
                     n > 2 ? b64[v & 63] : '='};
        fwrite(q, 1, 4, out);
    }
}

int df_doc_image(df_doc *d, const char *rdir, const char *name, const char *title,
                 const char *caption)
{
    if (!d->html) {
        fprintf(d->f, "![%s](%s.png)\n\n", title, name);
        esc(d, caption);
        fprintf(d->f, " [SVG](%s.svg) · remake: `gnuplot %s.gp` (data in `%s.dat`)\n\n", name,
                name, name);
        return 0;
    }
    char file[128], path[DF_CAMPAIGN_PATH_CAP];
    snprintf(file, sizeof file, "%s.svg", name);
    FILE *f = df_campaign_join(path, rdir, file) == 0 ? fopen(path, "rb") : NULL;
    if (!f)
        return -1;
    fputs("<figure><img alt=\"", d->f);
    esc(d, title);
    fputs("\" src=\"data:image/svg+xml;base64,", d->f);
    base64_copy(f, d->f);
    int bad = ferror(f);
    fclose(f);
    fputs("\"><figcaption>", d->f);
    esc(d, caption);
    fputs("</figcaption></figure>\n", d->f);
    return bad ? -1 : 0;
}
