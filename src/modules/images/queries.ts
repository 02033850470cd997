// The images table's statements.
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { images } from './tables.ts';

/** Stores an image unless one of its name is there (a name is its content). */
export async function insertImageUnlessThere(
  db: Db,
  image: { name: string; contentType: string; body: string },
): Promise<void> {
  await db.execute(sql`insert into images (name, content_type, body)
      values (${image.name}, ${image.contentType}, ${image.body}) on conflict do nothing`);
}

/** The image of this name. */
export async function imageNamed(db: Db, name: string) {
  const [row] = await db.select().from(images).where(eq(images.name, name));
  return row;
}
