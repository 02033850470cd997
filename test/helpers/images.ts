// Uploaded images in tests: multipart bodies as a browser sends them, pictures made with sharp,
// and a small S3 speaking the real wire format (path-style PutObject, GetObject, HeadObject).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

export interface MultipartFile {
  name?: string;
  filename: string;
  type: string;
  body: Buffer;
}

/** A multipart/form-data body: the fields, then the file (as browsers order a form's parts). */
export function multipart(fields: Record<string, string>, file?: MultipartFile) {
  const boundary = `----portage${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="${file.name ?? 'file'}"; filename="${file.filename}"\r\ncontent-type: ${file.type}\r\n\r\n`,
      ),
      file.body,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A picture of `width`×`height`: a colour gradient, so that every width encodes differently. */
export async function picture(
  width: number,
  height: number,
  format: 'png' | 'jpeg' | 'webp' | 'gif' = 'png',
): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = (x * 255) / width;
      raw[i + 1] = (y * 255) / height;
      raw[i + 2] = 128;
    }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .toFormat(format)
    .toBuffer();
}

/** A JPEG carrying EXIF with a GPS position and a camera, and an orientation (6: turned a quarter). */
export async function jpegWithGps(width: number, height: number, orientation = 1): Promise<Buffer> {
  return sharp(await picture(width, height, 'jpeg'))
    .withExif({
      IFD0: { Make: 'PortageCam', Model: 'Secret Model 9' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '45/1 30/1 1234/100',
        GPSLongitudeRef: 'W',
        GPSLongitude: '73/1 34/1 5678/100',
      },
    })
    .withMetadata({ orientation })
    .jpeg()
    .toBuffer();
}

export interface FakeS3 {
  url: string;
  objects: Map<string, { body: Buffer; contentType: string | undefined; cacheControl: string | undefined }>;
  requests: Array<{ method: string; path: string; signed: boolean }>;
  close(): Promise<void>;
}

const body = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/**
 * Just enough of S3 for the image store: objects at /<bucket>/<key>, PUT stores, GET and HEAD
 * answer them or 404 NoSuchKey (the XML error body S3 sends); unsigned requests are 403.
 */
export async function fakeS3(bucket: string): Promise<FakeS3> {
  const objects: FakeS3['objects'] = new Map();
  const requests: FakeS3['requests'] = [];
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://s3.local');
    const [, b, ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    const auth = req.headers.authorization ?? '';
    const signed =
      /^AWS4-HMAC-SHA256 Credential=\S+\/s3\/aws4_request, SignedHeaders=\S+, Signature=[0-9a-f]{64}$/.test(
        auth,
      );
    requests.push({ method: req.method ?? '', path: url.pathname, signed });
    const payload = await body(req);
    const error = (status: number, code: string) => {
      res.writeHead(status, { 'content-type': 'application/xml' });
      res.end(
        req.method === 'HEAD'
          ? undefined
          : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message><Key>${key}</Key></Error>`,
      );
    };
    if (!signed) return error(403, 'AccessDenied');
    if (b !== bucket) return error(404, 'NoSuchBucket');
    if (req.method === 'PUT') {
      objects.set(key, {
        body: payload,
        contentType: req.headers['content-type'],
        cacheControl: req.headers['cache-control'],
      });
      res.writeHead(200, { etag: '"0"' });
      return res.end();
    }
    const object = objects.get(key);
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (!object) return error(404, 'NoSuchKey');
      res.writeHead(200, {
        'content-type': object.contentType ?? 'application/octet-stream',
        'content-length': object.body.length,
        etag: '"0"',
      });
      return res.end(req.method === 'GET' ? object.body : undefined);
    }
    error(405, 'MethodNotAllowed');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    objects,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
