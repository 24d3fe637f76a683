import { ProblemException } from '@lib/core';
import { ArrayBodyPipe } from './array-body.pipe';
import { LocationMappingDto } from './dto/location.dto';
import { ServiceCategoryMappingDto } from './dto/service-category.dto';

async function problemOf(promise: Promise<unknown>): Promise<ReturnType<ProblemException['toProblem']>> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProblemException);
  return (error as ProblemException).toProblem();
}

describe('ArrayBodyPipe', () => {
  const pipe = new ArrayBodyPipe(ServiceCategoryMappingDto, 3);
  const item = { providerName: 'aws', assetType: 'vm', serviceCategory: 'Compute' };

  it('returns trimmed instances of the item class', async () => {
    const items = await pipe.transform([{ providerName: ' aws ', assetType: 'vm ', serviceCategory: ' Compute' }]);
    expect(items).toEqual([item]);
    expect(items[0]).toBeInstanceOf(ServiceCategoryMappingDto);
  });

  it('refuses unknown fields inside items, naming item and field', async () => {
    const problem = await problemOf(pipe.transform([item, { ...item, extra: 1 }]));
    expect(problem).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      errors: [{ field: '[1].extra', messages: [expect.stringContaining('should not exist')] }],
    });
  });

  it('lists missing, blank and too long fields of every item', async () => {
    const problem = await problemOf(
      pipe.transform([
        { providerName: 'aws', assetType: '  ' },
        { ...item, serviceCategory: 'x'.repeat(257) },
      ]),
    );
    expect(problem.errors?.map((e) => e.field)).toEqual(['[0].serviceCategory', '[0].assetType', '[1].serviceCategory']);
  });

  it.each([
    ['an object', item],
    ['a string', 'vm'],
    ['null', null],
    ['an empty array', []],
    ['too many items', [item, item, item, item]],
  ])('refuses %s as the body', async (_name, body) => {
    expect(await problemOf(pipe.transform(body))).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', errors: [{ field: 'body' }] });
  });

  it('refuses items that are not objects', async () => {
    const problem = await problemOf(pipe.transform([item, 'vm', [item]]));
    expect(problem.errors?.map((e) => e.field)).toEqual(['[1]', '[2]']);
  });

  it('treats blank optional location fields as absent and refuses wrong types', async () => {
    const locations = new ArrayBodyPipe(LocationMappingDto, 10);
    expect(await locations.transform([{ providerName: 'aws', providerRegionCode: 'us-east-1', state: '  ' }])).toEqual([
      { providerName: 'aws', providerRegionCode: 'us-east-1' },
    ]);
    const problem = await problemOf(locations.transform([{ providerName: 'aws', providerRegionCode: 'r', country: 7 }]));
    expect(problem.errors?.map((e) => e.field)).toEqual(['[0].country']);
  });
});
