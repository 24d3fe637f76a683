import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnDetached, writePid } from '../process-control';
import { httpStatus } from '../readiness';
import { StackSettings } from '../settings';
import { LocalComponent, logFile, nodeBin, pidFile } from './local-component';

/**
 * s3rver from node_modules (keys S3RVER/S3RVER); objects live in `<dataDir>/s3`. The bucket gets a
 * CORS rule (s3-cors.xml) so that browsers may PUT to pre-signed URLs (the web console's uploads).
 */
export const s3Component: LocalComponent = {
  name: 's3',
  programs: [],
  ports: (settings) => [settings.ports.s3],
  commandMarker: 's3rver',
  startTimeoutMs: 15_000,

  async isHealthy(settings) {
    return (await httpStatus(settings.localUrls.s3)) !== undefined;
  },

  async spawn({ settings }) {
    const storeDir = path.join(settings.dataDir, 's3');
    fs.mkdirSync(storeDir, { recursive: true });
    const cors = path.join(__dirname, '..', 's3-cors.xml');
    const args = [
      nodeBin(settings, 's3rver'),
      '-d',
      storeDir,
      '-a',
      '127.0.0.1',
      '-p',
      String(settings.ports.s3),
      '--silent',
      '--configure-bucket',
      settings.s3.bucket,
      cors,
    ];
    const pid = spawnDetached(process.execPath, args, logFile(settings, 's3'), settings.dataDir);
    writePid(pidFile(settings, 's3'), pid);
  },

  async prepare({ settings, log }) {
    const client = await s3Client(settings);
    if (await client.bucketExists(settings.s3.bucket)) return;
    await client.makeBucket(settings.s3.bucket, settings.s3.region);
    log(`stack: s3 bucket '${settings.s3.bucket}' created`);
  },
};

async function s3Client(settings: StackSettings) {
  const { Client } = await import('minio'); // loaded only when s3 starts: it is a large module
  return new Client({
    endPoint: '127.0.0.1',
    port: settings.ports.s3,
    useSSL: false,
    accessKey: settings.s3.accessKey,
    secretKey: settings.s3.secretKey,
    pathStyle: true,
    region: settings.s3.region,
  });
}
