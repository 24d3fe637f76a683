import * as fs from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';

export const CONSOLE_DIST = path.join(__dirname, '..', '..', 'dist', 'console');
/** The budget for what the browser must load before the first page shows (issue: ≤ 300 KB gzipped). */
export const INITIAL_JS_LIMIT_BYTES = 300 * 1024;

export interface BundleSize {
  /** Scripts index.html loads or preloads: what runs before the first page shows. */
  initialJsGzip: number;
  initialFiles: string[];
  /** Every script of the build, pages and the chart library included. */
  allJsGzip: number;
  /** The largest on-demand chunk (the chart library). */
  largestLazy: { file: string; gzip: number };
  cssGzip: number;
}

const gzipSize = (file: string) => gzipSync(fs.readFileSync(path.join(CONSOLE_DIST, file)), { level: 9 }).length;

/** Measures the built console in dist/console (gzip level 9, as the gateway or a CDN would serve it). */
export function measureBundle(dist = CONSOLE_DIST): BundleSize {
  const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
  const initialFiles = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\/([^"]+\.js)"/g)].map(
    (match) => match[1],
  );
  const scripts = fs
    .readdirSync(path.join(dist, 'assets'))
    .filter((file) => file.endsWith('.js'))
    .map((file) => `assets/${file}`);
  const styles = fs
    .readdirSync(path.join(dist, 'assets'))
    .filter((file) => file.endsWith('.css'))
    .map((file) => `assets/${file}`);
  const lazy = scripts.filter((file) => !initialFiles.includes(file)).map((file) => ({ file, gzip: gzipSize(file) }));
  return {
    initialJsGzip: initialFiles.reduce((sum, file) => sum + gzipSize(file), 0),
    initialFiles,
    allJsGzip: scripts.reduce((sum, file) => sum + gzipSize(file), 0),
    largestLazy: lazy.sort((a, b) => b.gzip - a.gzip)[0] ?? { file: '-', gzip: 0 },
    cssGzip: styles.reduce((sum, file) => sum + gzipSize(file), 0),
  };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export function describeBundle(size: BundleSize): string {
  return (
    `console bundle: initial JavaScript ${kb(size.initialJsGzip)} gzipped (limit ${kb(INITIAL_JS_LIMIT_BYTES)}; ` +
    `${size.initialFiles.length} files), all JavaScript ${kb(size.allJsGzip)}, largest on-demand chunk ` +
    `${path.basename(size.largestLazy.file)} ${kb(size.largestLazy.gzip)}, CSS ${kb(size.cssGzip)}`
  );
}
