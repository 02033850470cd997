// Where uploaded images' files live: a directory (the embedded database's data directory, one
// instance), the database (PostgreSQL: every instance reads the same table), or an S3-compatible
// bucket. A file's name is a hash of its content, so a name once stored never changes: put is
// idempotent and nothing is ever overwritten with other bytes.
import { mkdirSync } from 'node:fs';
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BucketSettings } from '../../config.ts';
import type { Db } from '../../db/index.ts';
import { blobExists, blobNamed, insertBlobUnlessThere } from './queries.ts';

export interface ImageFileBody {
  contentType: string;
  body: Buffer;
}

export interface ImageStore {
  readonly kind: 'directory' | 'database' | 'bucket';
  put(name: string, contentType: string, body: Buffer): Promise<void>;
  get(name: string): Promise<ImageFileBody | undefined>;
  has(name: string): Promise<boolean>;
}

const TYPES: Record<string, string> = { webp: 'image/webp', jpg: 'image/jpeg' };
const typeOf = (name: string) => TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream';

/** Files under `dir` (made if missing); a file appears whole or not at all (written aside, then renamed). */
export function directoryStore(dir: string): ImageStore {
  mkdirSync(dir, { recursive: true });
  const file = (name: string) => path.join(dir, path.basename(name));
  return {
    kind: 'directory',
    async put(name, _contentType, body) {
      if (await this.has(name)) return;
      const aside = `${file(name)}.${process.pid}.${Date.now()}.part`;
      await writeFile(aside, body);
      await rename(aside, file(name));
    },
    async get(name) {
      try {
        return { contentType: typeOf(name), body: await readFile(file(name)) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    async has(name) {
      return stat(file(name)).then(
        () => true,
        () => false,
      );
    },
  };
}

/** Rows of image_blobs: what every instance over the same PostgreSQL sees. */
export function databaseStore(db: Db): ImageStore {
  return {
    kind: 'database',
    put: (name, contentType, body) => insertBlobUnlessThere(db, { name, contentType, body }),
    get: (name) => blobNamed(db, name),
    has: (name) => blobExists(db, name),
  };
}

/** An S3-compatible bucket, addressed by path (`<endpoint>/<bucket>/<name>`: MinIO, R2, Ceph and AWS all take it). */
export function bucketStore(s: BucketSettings): ImageStore {
  // The SDK is loaded with the first request (a sixth of a second no start without a bucket pays).
  let sdk: Promise<{
    S3: typeof import('@aws-sdk/client-s3');
    client: import('@aws-sdk/client-s3').S3Client;
  }>;
  const connected = () => {
    sdk ??= import('@aws-sdk/client-s3').then((S3) => ({
      S3,
      client: new S3.S3Client({
        endpoint: s.endpoint,
        region: s.region,
        forcePathStyle: true,
        credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
        maxAttempts: 3,
      }),
    }));
    return sdk;
  };
  const missing = (err: unknown) =>
    (err as { name?: string }).name === 'NoSuchKey' ||
    (err as { name?: string }).name === 'NotFound' ||
    (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;
  return {
    kind: 'bucket',
    async put(name, contentType, body) {
      const { S3, client } = await connected();
      await client.send(
        new S3.PutObjectCommand({
          Bucket: s.bucket,
          Key: name,
          Body: body,
          ContentType: contentType,
          CacheControl: 'public, max-age=31536000, immutable',
        }),
      );
    },
    async get(name) {
      const { S3, client } = await connected();
      try {
        const out = await client.send(new S3.GetObjectCommand({ Bucket: s.bucket, Key: name }));
        const bytes = await out.Body!.transformToByteArray();
        return { contentType: typeOf(name), body: Buffer.from(bytes) };
      } catch (err) {
        if (missing(err)) return undefined;
        throw err;
      }
    },
    async has(name) {
      const { S3, client } = await connected();
      try {
        await client.send(new S3.HeadObjectCommand({ Bucket: s.bucket, Key: name }));
        return true;
      } catch (err) {
        if (missing(err)) return false;
        throw err;
      }
    },
  };
}

/**
 * The store of this deployment: the bucket when one is configured; otherwise the database on
 * PostgreSQL (several instances), the data directory on the embedded database (one instance).
 */
export function imageStoreFor(opts: {
  bucket: BucketSettings | undefined;
  database: { kind: 'pglite' | 'postgres'; db: Db };
  dataDir: string;
}): ImageStore {
  if (opts.bucket) return bucketStore(opts.bucket);
  if (opts.database.kind === 'postgres') return databaseStore(opts.database.db);
  return directoryStore(path.join(opts.dataDir, 'images'));
}
