/* report_doc.h — the report's text, written once for Markdown and HTML
 * (report_doc.c): headings, paragraphs, tables, inline code, each escaped
 * for the format, so that report.md and report.html come from the same
 * section writers (report_sections.c). */
#ifndef DOTFUZZ_REPORT_DOC_H
#define DOTFUZZ_REPORT_DOC_H

#include <stddef.h>
#include <stdio.h>

typedef struct df_doc {
    FILE *f;
    int html;
    const char *align; /* the open table's alignments, a column each */
    size_t col;        /* the next cell's column in its row */
} df_doc;

/* A heading of level 1-4; its text escaped. id (may be NULL) is HTML's
 * anchor. */
void df_doc_h(df_doc *d, int level, const char *id, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A paragraph: open it, put text and code, close it. */
void df_doc_p_open(df_doc *d);
void df_doc_p_close(df_doc *d);
/* Text, formatted then escaped. */
void df_doc_text(df_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as inline code. */
void df_doc_code(df_doc *d, const char *s);
/* A whole paragraph (cell 0) or table cell (cell 1) of formatted text:
 * df_doc_para and df_doc_cell. */
void df_doc_block(df_doc *d, int cell, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define df_doc_para(d, ...) df_doc_block((d), 0, __VA_ARGS__)
#define df_doc_cell(d, ...) df_doc_block((d), 1, __VA_ARGS__)

/* A table: its headers and alignments ('l' or 'r' a column, "lrr"), then
 * rows of cells, then its end. */
void df_doc_table(df_doc *d, const char *align, const char *const *heads);
void df_doc_row_open(df_doc *d);
void df_doc_cell_code(df_doc *d, const char *s);
void df_doc_cell_open(df_doc *d); /* a cell built from text and code */
void df_doc_cell_close(df_doc *d);
void df_doc_row_close(df_doc *d);
void df_doc_table_close(df_doc *d);

/* A plot of the report: Markdown links rdir's NAME.png (and its SVG and
 * script) with the caption; HTML embeds NAME.svg whole as a data: URI, so
 * the page needs no other file. 0, or -1 when the SVG cannot be opened
 * (nothing written) or read. */
int df_doc_image(df_doc *d, const char *rdir, const char *name, const char *title,
                 const char *caption);

#endif
