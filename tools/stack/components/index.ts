import { ComponentName } from '../types';
import { azuriteComponent } from './azurite';
import { LocalComponent } from './local-component';
import { ldapComponent } from './ldap';
import { mongoComponent } from './mongo';
import { natsComponent } from './nats';
import { s3Component } from './s3';
import { smtpComponent } from './smtp';

export const COMPONENTS: Record<ComponentName, LocalComponent> = {
  nats: natsComponent,
  ldap: ldapComponent,
  s3: s3Component,
  mongo: mongoComponent,
  smtp: smtpComponent,
  azurite: azuriteComponent,
};
