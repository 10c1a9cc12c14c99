import path from 'node:path';
import { fileURLToPath } from 'node:url';

export { createUserService, RESET_TOKEN_MINUTES, WRONG_CREDENTIALS, type User, type UserService } from './service.ts';
export { userRoutes, TOKEN_HEADER } from './routes.ts';
export { noStanding, type AccountStanding, type CatalogDirectory, type VideoCard, type Vip } from './ports.ts';

export const userMigrations = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'migrations');
export { userInternalRoutes, userClientOverHttp, type UserClient } from './internal.ts';
