// A product's image_urls hold its gallery's files first (uploaded images, in order), then the
// URLs its seller gave: the one list every product answer (API, search, pages, tools) reads.

/** The stored names of uploaded files: a hash of the file's bytes and its width. */
export const UPLOADED_NAME = /^[0-9a-f]{16}-[0-9]{1,5}\.(webp|jpg)$/;

/** Whether a URL is one of our uploaded files (under any host: PUBLIC_BASE_URL may have moved). */
export function isUploadedUrl(url: string): boolean {
  const at = url.lastIndexOf('/images/');
  return at >= 0 && UPLOADED_NAME.test(url.slice(at + '/images/'.length));
}

/** The gallery's URLs, then the others that are not uploaded files. */
export function withGalleryFirst(galleryUrls: string[], current: string[]): string[] {
  return [...new Set([...galleryUrls, ...current.filter((u) => !isUploadedUrl(u))])];
}

/** The seller's new URLs for a product (PATCH /products/:id), its uploaded images kept in front. */
export const keepUploadedImages = (current: string[], given: string[]) =>
  withGalleryFirst(current.filter(isUploadedUrl), given);
