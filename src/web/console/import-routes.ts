// The console's CSV import: GET shows the form; POST reads the multipart upload as it arrives
// (busboy), hands the file's stream to the catalog's import (the API's own checks), and streams
// its answer: progress as the file is read, then its problems by line, or what was imported. Its
// own scope: its multipart parser is its alone.
import { PassThrough, type Readable } from 'node:stream';
import busboy from 'busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalid, wordProblems } from '../../contract/errors.ts';
import { t } from '../../contract/i18n.ts';
import { ImportRefused, importProducts, MAX_IMPORT_BYTES } from '../../modules/catalog/csv.ts';
import { signedIn, viewOf, type WebDeps } from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import { type FormError, formErrorOf, sendHtml, shownRefusal } from '../layout.ts';
import { type ImportOutcome, importStream, importView } from './import-views.ts';

const SELLERS = ['seller'] as const;

interface Upload {
  /** The CSRF token, from the action's query (the web scope's check reads `body.csrf`). */
  csrf: unknown;
  payload: Readable;
}

/** The dry-run box and the file's stream, from a multipart body whose box comes before its file. */
function readUpload(
  req: FastifyRequest,
  payload: Readable,
): Promise<{ dryRun: boolean; file: Readable | undefined }> {
  return new Promise((resolve, reject) => {
    let dryRun = false;
    const parser = busboy({
      headers: req.headers,
      limits: { files: 1, fields: 5, fieldSize: 1024, parts: 6, fileSize: MAX_IMPORT_BYTES + 1 },
    });
    parser.on('field', (name, value) => {
      if (name === 'dryRun') dryRun = value === 'true';
    });
    parser.on('file', (_name, file) => resolve({ dryRun, file }));
    parser.on('close', () => resolve({ dryRun, file: undefined }));
    parser.on('error', reject);
    payload.pipe(parser);
  });
}

export function consoleImportPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  app.register(async (scope) => {
    if (scope.hasContentTypeParser('multipart/form-data'))
      scope.removeContentTypeParser('multipart/form-data');
    scope.addContentTypeParser('multipart/form-data', (req, payload, done) => {
      // The stream not enumerable: the checks that walk every body (src/http/input.ts) see the token only.
      const upload = { csrf: (req.query as { csrf?: unknown }).csrf } as Upload;
      done(null, Object.defineProperty(upload, 'payload', { value: payload, enumerable: false }));
    });

    scope.get(
      '/console/products/import',
      { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } },
      async (req, reply) => {
        signedIn(req, SELLERS);
        return sendHtml(reply, importView(viewOf(req, reply, s), {}));
      },
    );

    scope.post(
      '/console/products/import',
      { config: { auth: 'public', limit: 'productWrites' }, schema: { hide: true } },
      async (req, reply) => {
        signedIn(req, SELLERS);
        const upload = req.body as Upload | undefined;
        let read: Awaited<ReturnType<typeof readUpload>>;
        // The bytes of the upload read so far, against its length: the share a progress bar shows.
        const size = Number(req.headers['content-length'] ?? 0);
        let bytes = 0;
        try {
          if (!upload?.payload) throw invalid('error.catalog.importBody');
          upload.payload.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
          });
          read = await readUpload(req, upload.payload);
          if (!read.file) throw invalid('error.catalog.importBody');
        } catch (err) {
          return answerRefusal(req, reply, s, err, (v, error) => importView(v, { error }));
        }
        const { dryRun, file } = read;
        // From here the answer streams: the page and a progress line every PROGRESS_ROWS rows,
        // then the outcome. Its status is sent first, so a refused file is a 200 page of problems.
        const v = viewOf(req, reply, s);
        const l = v.p.locale;
        const parts = importStream(v);
        const out = new PassThrough();
        out.on('error', () => {});
        // A page closed mid-file stops the import (its transaction rolls back). A progress line
        // never waits for the page to read: the import runs in a transaction, which a reader
        // that stops reading must not hold open; a line the page has not taken yet is skipped.
        const write = (chunk: string) => {
          if (out.destroyed) throw new Error('the import page was closed');
          if (!out.writableNeedDrain) out.write(chunk);
        };
        out.write(parts.head);
        void (async () => {
          let outcome: ImportOutcome | undefined;
          let error: FormError | undefined;
          try {
            const r = await importProducts(req.ctx, file!, {
              dryRun,
              onProgress: (rows) =>
                write(
                  parts.line(rows, size > 0 ? Math.min(100, Math.floor((bytes / size) * 100)) : undefined),
                ),
            });
            outcome = {
              dryRun: r.dryRun,
              imported: r.imported,
              products: r.products.created,
              variants: r.variants.created,
              updated: r.products.updated,
              deleted: r.variants.deleted,
              problemCount: r.problemCount,
              problems: r.problems,
            };
          } catch (err) {
            if (err instanceof ImportRefused && err.problemCount > 0) {
              outcome = {
                dryRun: false,
                imported: false,
                products: 0,
                variants: 0,
                updated: 0,
                deleted: 0,
                problemCount: err.problemCount,
                problems: err.lineProblems.map((p) => ({
                  line: p.line,
                  ...wordProblems(l, [p.problem])[0]!,
                })),
              };
            } else if (shownRefusal(err)) {
              error = formErrorOf(l, err);
            } else {
              req.log.error({ err }, 'console import failed');
              error = { message: t(l, 'web.error.internal', { id: req.id }), fields: {} };
            }
          }
          out.end(parts.end({ outcome, error }));
        })();
        return reply.type('text/html; charset=utf-8').send(out);
      },
    );
  });
}
