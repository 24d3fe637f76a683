import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ResourceGroupRepository } from './resource-group.repository';
import { ResourceGroupsController } from './resource-groups.controller';
import { ResourceGroupsService } from './resource-groups.service';
import { ResourceGroup, ResourceGroupSchema } from './schemas/resource-group.schema';
import { VisibilityService } from './visibility.service';

@Module({
  imports: [MongooseModule.forFeature([{ name: ResourceGroup.name, schema: ResourceGroupSchema }])],
  controllers: [ResourceGroupsController],
  providers: [ResourceGroupRepository, ResourceGroupsService, VisibilityService],
  exports: [VisibilityService],
})
export class ResourceGroupsModule {}
