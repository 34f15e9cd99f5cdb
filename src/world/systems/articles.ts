import type Database from 'better-sqlite3';

/*
 * The simulated CMS: each article's published flag and how many times it was
 * published, and which slug every publication was, because unpublishing (the
 * compensation) is asked by the publication's key, not by slug.
 */

/** The CMS's tables: the articles, and one row per publication. */
export const ARTICLES_SCHEMA_SQL = `CREATE TABLE IF NOT EXISTS world_articles (
  slug          TEXT PRIMARY KEY,
  published     INTEGER NOT NULL,
  publications  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS world_publications (
  effect_seq  INTEGER PRIMARY KEY,
  slug        TEXT    NOT NULL
);`;

/** An article as the CMS holds it. */
export interface ArticleRow {
  slug: string;
  published: boolean;
  publications: number;
}

/** Publishes an article (again, if it was): returns how many times it has now been published. */
export function publishArticle(db: Database.Database, slug: string): number {
  db.prepare(
    `INSERT INTO world_articles (slug, published, publications) VALUES (?, 1, 1)
       ON CONFLICT (slug) DO UPDATE SET published = 1, publications = publications + 1`,
  ).run(slug);
  return (db.prepare('SELECT publications FROM world_articles WHERE slug = ?').get(slug) as { publications: number }).publications;
}

/** Remembers which article effect `effectSeq` published. */
export function recordPublication(db: Database.Database, effectSeq: number, slug: string): void {
  db.prepare('INSERT INTO world_publications (effect_seq, slug) VALUES (?, ?)').run(effectSeq, slug);
}

/** The slug publish_article effect `effectSeq` published; every one has a row. */
export function publicationOf(db: Database.Database, effectSeq: number): string {
  return (db.prepare('SELECT slug FROM world_publications WHERE effect_seq = ?').get(effectSeq) as { slug: string }).slug;
}

/** Takes a published article down; false when it was not published. */
export function unpublishArticle(db: Database.Database, slug: string): boolean {
  return db.prepare('UPDATE world_articles SET published = 0 WHERE slug = ? AND published = 1').run(slug).changes === 1;
}

/** Every article, by slug. */
export function allArticles(db: Database.Database): ArticleRow[] {
  const rows = db.prepare('SELECT slug, published, publications FROM world_articles ORDER BY slug').all() as Array<{
    slug: string;
    published: number;
    publications: number;
  }>;
  return rows.map((a) => ({ slug: a.slug, published: a.published === 1, publications: a.publications }));
}
