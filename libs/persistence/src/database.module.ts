import { DynamicModule, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { UniqueIndexCheck } from './unique-indexes';

/** The mongoose connection with settings that fail fast instead of queueing forever. */
@Module({})
export class DatabaseModule {
  static forRoot(uri: string, appName: string, options: { autoIndex?: boolean } = {}): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        MongooseModule.forRoot(uri, {
          appName,
          serverSelectionTimeoutMS: 5000,
          bufferCommands: false,
          autoIndex: options.autoIndex ?? true,
          retryAttempts: 10,
          retryDelay: 1000,
          lazyConnection: false,
        }),
      ],
      providers: [UniqueIndexCheck],
      exports: [MongooseModule],
    };
  }
}
