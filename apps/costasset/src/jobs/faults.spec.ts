import { describeFault, rethrowTransient, TransientFault, transientSource } from './faults';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const named = (message: string, name: string) => Object.assign(new Error(message), { name });

describe('fault classification', () => {
  it('tells transient faults by the system that was unreachable', () => {
    expect(transientSource(named('Server selection timed out', 'MongoServerSelectionError'))).toBe('database');
    expect(transientSource(named('connection 3 to 127.0.0.1:27017 closed', 'MongoNetworkError'))).toBe('database');
    expect(transientSource(new Error('Operation `costlineitems.insertMany()` buffering timed out after 10000ms'))).toBe('database');
    expect(transientSource(named('connection 6 to 127.0.0.1:37985 closed', 'MongoBulkWriteError'))).toBe('database');
    expect(transientSource(Object.assign(named('We encountered an internal error', 'S3Error'), { code: 'InternalError' }))).toBe(
      'object store',
    );
    expect(transientSource(Object.assign(named('Service Unavailable', 'S3Error'), { code: 'x', statusCode: 503 }))).toBe('object store');
    expect(transientSource(Object.assign(named('disconnected', 'NatsError'), { code: 'DISCONNECT' }))).toBe('message queue');
    expect(transientSource(withCode('connect ECONNREFUSED 127.0.0.1:9000', 'ECONNREFUSED'))).toBe('network');
    expect(transientSource(new Error('socket hang up'))).toBe('network');
  });

  it('follows the cause of a wrapping error', () => {
    const wrapped = new Error('f.parquet could not be read', { cause: withCode('read ECONNRESET', 'ECONNRESET') });
    expect(transientSource(wrapped)).toBe('network');
  });

  it('answers nothing for a fault no retry can fix', () => {
    expect(transientSource(new Error('f.parquet is not a readable Parquet file: invalid magic'))).toBeUndefined();
    expect(
      transientSource(Object.assign(named('The specified key does not exist.', 'S3Error'), { code: 'NoSuchKey', statusCode: 404 })),
    ).toBe(undefined);
    expect(transientSource(Object.assign(named('E11000 duplicate key', 'MongoServerError'), { code: 11000 }))).toBeUndefined();
  });

  it('describes a transient fault by what was unreachable, anything else by its own message', () => {
    expect(describeFault(withCode('connect ECONNREFUSED 127.0.0.1:9000', 'ECONNREFUSED'))).toBe(
      'network unreachable: connect ECONNREFUSED 127.0.0.1:9000',
    );
    expect(describeFault(new TransientFault('object store', withCode('connect ECONNREFUSED', 'ECONNREFUSED')))).toBe(
      'object store unreachable: connect ECONNREFUSED',
    );
    expect(describeFault(new Error('bad row'))).toBe('bad row');
  });

  it('rethrows a transient fault naming the system the stage called, and lets other errors pass', () => {
    const refused = withCode('connect ECONNREFUSED', 'ECONNREFUSED');
    expect(() => rethrowTransient('object store', refused)).toThrow(TransientFault);
    expect(() => rethrowTransient('object store', refused)).toThrow('object store unreachable: connect ECONNREFUSED');
    expect(() => rethrowTransient('object store', new Error('invalid magic'))).not.toThrow();
  });
});
