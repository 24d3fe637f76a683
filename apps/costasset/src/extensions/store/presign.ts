import { Problems } from '@lib/core';

export const storeUnavailable = () => Problems.unavailable('OBJECT_STORE_UNAVAILABLE', 'The object store cannot be reached');
